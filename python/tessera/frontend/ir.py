"""What the parser's expressions evaluate to, and the text emitter.

Kernel values are IR values (:class:`Value`: an SSA name and a scalar type),
tiles (:class:`Tile`), tensor parameters (:class:`TensorParam`) and tensor
regions (:class:`Region`, ``A[r, c]`` or ``A[r0:r1, :]`` as a T.copy operand).
Anything else is a plain Python value, a constant at parse time.
"""

from ..language.dtypes import from_ir


class Value:
    """A scalar SSA value of type `type` ("index", "i32", "f32", ...);
    `const` holds the Python value of a constant (for folding)."""
    __slots__ = ("name", "type", "const")

    def __init__(self, name, type, const=None):
        self.name = name
        self.type = type
        self.const = const

    def __repr__(self):
        return "<%s : %s>" % (self.name, self.type)


class Tile:
    """A tile from T.alloc_*: reference semantics, like TileLang buffers."""

    def __init__(self, name, shape, ir_dtype, space, pyname):
        self.name = name
        self.shape = tuple(shape)
        self.ir_dtype = ir_dtype
        self.space = space
        self.pyname = pyname

    @property
    def dtype(self):
        return from_ir(self.ir_dtype)

    @property
    def ir_type(self):
        return "!tile.tile<%sx%s, %s>" % ("x".join(str(d) for d in self.shape),
                                          self.ir_dtype, self.space)

    def __repr__(self):
        return "<tile %s %s>" % (self.pyname, self.ir_type)


class TensorParam:
    """A global tensor parameter of the prim_func."""

    def __init__(self, name, shape, ir_dtype, position):
        self.name = "%" + name
        self.pyname = name
        self.shape = tuple(shape)  # ints and language.Symbol
        self.ir_dtype = ir_dtype
        self.position = position

    @property
    def dtype(self):
        return from_ir(self.ir_dtype)

    @property
    def ir_type(self):
        dims = [str(d) if isinstance(d, int) else d.name for d in self.shape]
        return "!tile.tensor<[%s], %s>" % (", ".join(dims), self.ir_dtype)


class Region:
    """``tensor[...]``: per dimension ("point", v) or ("slice", start, stop)."""

    def __init__(self, tensor, specs):
        self.tensor = tensor
        self.specs = specs


class Emitter:
    """Builds tile-dialect text: a stack of blocks of lines; every op carries
    the Python position it came from as `loc("file.py":line:col)`."""

    def __init__(self, filename):
        self.file = filename.replace("\\", "\\\\").replace('"', '\\"')
        self.blocks = [[]]
        self.counter = 0

    def fresh(self, hint="v"):
        self.counter += 1
        hint = "".join(c if c.isalnum() or c == "_" else "_" for c in hint)
        return "%%%s.%d" % (hint or "v", self.counter)

    def loc(self, pos):
        line, col = pos
        return 'loc("%s":%d:%d)' % (self.file, line, col)

    def op(self, text, pos, block=None):
        (self.blocks[-1] if block is None else block).append(
            "%s %s" % (text, self.loc(pos)))

    def push(self):
        self.blocks.append([])

    def pop(self, header, pos, middle=None):
        """Closes the innermost block into `header { ... }`; with `middle`
        (e.g. "} else {") the two innermost blocks form one op."""
        body = self.blocks.pop()
        lines = []
        if middle is not None:
            first = self.blocks.pop()
            lines.append(header + " {")
            lines.extend("  " + l for l in first)
            lines.append(middle)
        else:
            lines.append(header + " {")
        lines.extend("  " + l for l in body)
        lines.append("} " + self.loc(pos))
        self.blocks[-1].extend(lines)
