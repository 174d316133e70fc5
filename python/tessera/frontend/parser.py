"""A @T.prim_func's AST -> tile-dialect text.

This is syntax only: it maps TileLang's spelling onto tile ops and
`arith`/`math`/`scf` ops one to one, folds Python values (ints, dtypes,
flags, closure variables) at parse time, and stamps every op with the Python
file:line:col it came from. It checks nothing the IR can express: shapes,
dtypes of gemm operands, ops not allowed in a T.Parallel and so on are the
C++ verifiers' job, whose diagnostics then point at the same Python lines.
The frontend raises only where the Python cannot be written as IR at all
(an unknown name, a dtype string that names no type, a kernel value where a
constant is needed, a tensor element read outside T.copy).
"""

import ast
import builtins
import inspect
import math
import operator
import textwrap

from .. import language as T
from ..errors import TesseraError
from ..language import dtypes as D
from .ir import Emitter, Region, TensorParam, Tile, Value

_PY_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_PY_CMP = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_INT_CMP = {ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt", ast.GtE: "sge",
            ast.Eq: "eq", ast.NotEq: "ne"}
_FLOAT_CMP = {ast.Lt: "olt", ast.LtE: "ole", ast.Gt: "ogt", ast.GtE: "oge",
              ast.Eq: "oeq", ast.NotEq: "une"}
# Ops that "tl.enable_fast_math" lets run approximately (fastmath<afn>).
_APPROXIMABLE = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh"}
_MATH_FLOAT = {"exp": "math.exp", "exp2": "math.exp2", "log": "math.log",
               "log2": "math.log2", "sqrt": "math.sqrt",
               "rsqrt": "math.rsqrt", "tanh": "math.tanh",
               "floor": "math.floor", "ceil": "math.ceil"}
_PY_MATH = {"exp": math.exp, "exp2": lambda x: 2.0 ** x, "log": math.log,
            "log2": math.log2, "sqrt": math.sqrt,
            "rsqrt": lambda x: 1.0 / math.sqrt(x), "tanh": math.tanh,
            "floor": math.floor, "ceil": math.ceil}
_FLOAT_RANK = {"f8E4M3FN": 0, "f8E5M2": 0, "f16": 1, "bf16": 1, "f32": 2,
               "f64": 3}


class _Undefined:
    pass


_UNDEF = _Undefined()


class ParsedFunc:
    def __init__(self, name, text, params, filename, lineno):
        self.name = name
        self.text = text
        self.params = params
        self.filename = filename
        self.lineno = lineno


class Param:
    """One kernel parameter: a tensor (shape, dtype) or a scalar (dtype)."""

    def __init__(self, name, kind, ir_dtype, shape=None):
        self.name = name
        self.kind = kind  # "tensor" | "scalar"
        self.ir_dtype = ir_dtype
        self.shape = shape

    @property
    def dtype(self):
        return D.from_ir(self.ir_dtype)


class Scope:
    def __init__(self, parent=None, kind="block"):
        self.parent = parent
        self.kind = kind
        self.names = {}
        self.dropped = {}  # names that went out of scope: where they were set

    def lookup(self, name):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return _UNDEF

    def owner(self, name):
        s = self
        while s is not None:
            if name in s.names:
                return s
            s = s.parent
        return None


def parse_prim_func(func, fast_math=False):
    """`fast_math`: TileLang's "tl.enable_fast_math" pass config: the
    transcendental ops get `fastmath<afn>` (approximate: on NVIDIA GPUs an
    exp is one ex2.approx) and float divisions `fastmath<arcp>` (a
    reciprocal per divisor, then multiplies)."""
    try:
        source = inspect.getsource(func)
        filename = inspect.getsourcefile(func) or func.__code__.co_filename
    except (OSError, TypeError) as e:
        raise TesseraError("T.prim_func needs the function's source: %s" % e)
    lines = source.splitlines()
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    tree = ast.parse(textwrap.dedent(source))
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise TesseraError("T.prim_func decorates a function", filename,
                           func.__code__.co_firstlineno)
    return _Parser(func, filename, func.__code__.co_firstlineno - 1,
                   indent, fast_math).parse(fdef)


class _Parser:
    def __init__(self, func, filename, line_offset, col_offset,
                 fast_math=False):
        self.func = func
        self.fast_math = fast_math
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.em = Emitter(filename)
        self.globals = func.__globals__
        self.closure = {}
        if func.__closure__:
            for name, cell in zip(func.__code__.co_freevars, func.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass
        self.func_block = None
        self.symbols = {}       # Symbol name -> (TensorParam, dim index)
        self.symbol_values = {}  # Symbol name -> Value (tile.dim)
        self.in_kernel = False
        self.parallel_depth = 0
        self.node = None

    # ------------------------------------------------------------- errors
    def pos(self, node=None):
        node = node if node is not None else self.node
        if node is None or not hasattr(node, "lineno"):
            return (self.line_offset + 1, 1)
        return (node.lineno + self.line_offset,
                node.col_offset + 1 + self.col_offset)

    def error(self, message, node=None):
        line, col = self.pos(node)
        return TesseraError(message, self.filename, line, col)

    # ------------------------------------------------------------ entry
    def parse(self, fdef):
        self.node = fdef
        scope = Scope(kind="func")
        params = []
        header = []
        args = fdef.args
        if args.vararg or args.kwarg or args.kwonlyargs:
            raise self.error("a prim_func takes plain positional parameters")
        for i, a in enumerate(args.args):
            ann = self.annotation(a)
            if isinstance(ann, T.TensorAnnotation):
                tp = TensorParam(a.arg, ann.shape, ann.ir_dtype, i)
                for d, dim in enumerate(ann.shape):
                    if isinstance(dim, T.Symbol) and dim.name not in self.symbols:
                        self.symbols[dim.name] = (tp, d)
                scope.names[a.arg] = tp
                params.append(Param(a.arg, "tensor", ann.ir_dtype, ann.shape))
                header.append("%%%s: %s" % (a.arg, tp.ir_type))
            else:
                ir = self.scalar_dtype(ann, a)
                scope.names[a.arg] = Value("%" + a.arg, ir)
                params.append(Param(a.arg, "scalar", ir))
                header.append("%%%s: %s" % (a.arg, ir))
        self.func_block = self.em.blocks[-1]
        self.body(fdef.body, scope)
        self.em.op("tile.return", self.pos(fdef))
        body = self.em.blocks.pop()
        name = fdef.name
        lines = ["tile.func @%s(%s) {" % (name, ", ".join(header))]
        lines += ["  " + l for l in body]
        lines.append("} " + self.em.loc(self.pos(fdef)))
        return ParsedFunc(name, "\n".join(lines) + "\n", params,
                          self.filename, self.pos(fdef)[0])

    def annotation(self, a):
        if a.annotation is None:
            raise self.error("parameter '%s' needs a type: T.Tensor(shape, "
                             "dtype) or a scalar dtype such as T.float32"
                             % a.arg, a)
        ann = self.func.__annotations__.get(a.arg, _UNDEF)
        if ann is _UNDEF or isinstance(ann, str):
            ann = self.py_eval(a.annotation, Scope())
        return ann

    def scalar_dtype(self, ann, node):
        if ann is builtins.float:
            return "f32"
        if ann is builtins.int:
            return "i32"
        if ann is builtins.bool:
            return "i1"
        try:
            return D.to_ir(ann)
        except ValueError as e:
            raise self.error("parameter '%s': %s" % (node.arg, e), node)

    # ------------------------------------------------------- statements
    def body(self, stmts, scope):
        for s in stmts:
            self.stmt(s, scope)

    def stmt(self, node, scope):
        self.node = node
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error("%s statements are not supported in a "
                             "prim_func" % type(node).__name__, node)
        try:
            method(node, scope)
        except TesseraError:
            raise
        except RecursionError:
            raise
        except Exception as e:  # a bug or an odd construct: never a crash
            raise self.error("cannot translate this statement: %s: %s"
                             % (type(e).__name__, e), node) from e

    def stmt_Pass(self, node, scope):
        pass

    def stmt_Return(self, node, scope):
        if node.value is not None:
            raise self.error("a prim_func returns nothing: outputs are "
                             "written to tensor parameters (out_idx)")

    def stmt_Expr(self, node, scope):
        if isinstance(node.value, ast.Constant) and isinstance(
                node.value.value, str):
            return  # docstring
        self.expr(node.value, scope)

    def stmt_Assert(self, node, scope):
        cond = self.expr(node.test, scope)
        if self.is_ir(cond):
            raise self.error("assert on a kernel value is not supported")
        if not cond:
            msg = self.py_eval(node.msg, scope) if node.msg else "assert"
            raise self.error("assertion failed: %s" % msg)

    def stmt_Assign(self, node, scope):
        t = node.targets[0]
        self.name_hint = t.id if isinstance(t, ast.Name) else None
        try:
            value = self.expr(node.value, scope)
        finally:
            self.name_hint = None
        for target in node.targets:
            self.assign(target, value, scope, node)

    def stmt_AnnAssign(self, node, scope):
        if node.value is None:
            raise self.error("a declaration without a value")
        value = self.expr(node.value, scope)
        ann = self.py_eval(node.annotation, scope)
        if isinstance(ann, str) and self.is_ir(value):
            value = self.convert(self.as_value(value), D.to_ir(ann))
        self.assign(node.target, value, scope, node)

    def stmt_AugAssign(self, node, scope):
        if isinstance(node.target, ast.Subscript):
            tile = self.expr(node.target.value, scope)
            if isinstance(tile, Tile):
                idx = self.tile_indices(tile, node.target.slice, scope)
                old = self.load(tile, idx)
                new = self.binop(type(node.op), old,
                                 self.expr(node.value, scope), node)
                self.store(tile, idx, new)
                return
        old = self.expr(node.target, scope)
        new = self.binop(type(node.op), old, self.expr(node.value, scope),
                         node)
        self.assign(node.target, new, scope, node)

    def assign(self, target, value, scope, node):
        if isinstance(target, ast.Name):
            if isinstance(value, Tile) and value.pyname == "_":
                value.pyname = target.id
            owner = scope.owner(target.id)
            if owner is None or owner is scope:
                scope.names[target.id] = value
            elif self.crosses_ir_region(scope, owner):
                if self.is_ir(value) or self.is_ir(owner.names[target.id]):
                    raise self.error(
                        "'%s' is reassigned inside a loop or branch: kernel "
                        "values do not flow out of IR loops and branches; "
                        "keep it in a tile (T.alloc_local((1,), dtype), then "
                        "%s[0] = ...)" % (target.id, target.id), target)
                scope.names[target.id] = value
            elif owner.kind == "func" and scope.kind != "block":
                scope.names[target.id] = value  # shadows inside the kernel
            else:
                owner.names[target.id] = value
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if self.is_ir(value) or not isinstance(value, (tuple, list)):
                raise self.error("cannot unpack %r" % (value,), target)
            if len(value) != len(target.elts):
                raise self.error("unpacking %d values into %d names"
                                 % (len(value), len(target.elts)), target)
            for t, v in zip(target.elts, value):
                self.assign(t, v, scope, node)
            return
        if isinstance(target, ast.Subscript):
            base = self.expr(target.value, scope)
            if isinstance(base, Tile):
                idx = self.tile_indices(base, target.slice, scope)
                self.store(base, idx, value)
                return
            if isinstance(base, TensorParam):
                raise self.error(
                    "global tensor '%s' is written element by element: "
                    "tessera writes tensors through T.copy(tile, %s[...]) "
                    "(compute into a fragment in T.Parallel, then copy)"
                    % (base.pyname, base.pyname), target)
            raise self.error("cannot assign into %r" % (base,), target)
        raise self.error("cannot assign to this target", target)

    def crosses_ir_region(self, scope, owner):
        s = scope
        while s is not None and s is not owner:
            if s.kind in ("loop", "branch", "parallel"):
                return True
            s = s.parent
        return False

    def stmt_With(self, node, scope):
        if len(node.items) != 1:
            raise self.error("one T.Kernel per with statement")
        item = node.items[0]
        call = item.context_expr
        fn = self.expr(call.func, scope) if isinstance(call, ast.Call) else None
        if T.BUILTINS.get(fn) != "Kernel":
            raise self.error("only 'with T.Kernel(...) as ...' is supported "
                             "in a prim_func", call)
        if self.in_kernel:
            raise self.error("T.Kernel inside a T.Kernel", call)
        grid = [self.index(self.expr(a, scope), a) for a in call.args]
        kw = {k.arg: k for k in call.keywords}
        threads = 128
        if "threads" in kw:
            threads = self.py_eval(kw["threads"].value, scope)
            if isinstance(threads, (list, tuple)) and len(threads) == 1:
                threads = threads[0]
            if not isinstance(threads, int):
                raise self.error("T.Kernel: threads must be an int known "
                                 "when the kernel is parsed, got %r"
                                 % (threads,), kw["threads"])
        if not grid:
            raise self.error("T.Kernel needs 1 to 3 grid sizes", call)
        names = []
        var = item.optional_vars
        if var is None:
            names = [None] * len(grid)
        elif isinstance(var, ast.Name):
            names = [var.id] + [None] * (len(grid) - 1)
        elif isinstance(var, (ast.Tuple, ast.List)) and all(
                isinstance(e, ast.Name) for e in var.elts):
            names = [e.id for e in var.elts]
            if len(names) != len(grid):
                raise self.error("T.Kernel has %d grid dimensions but binds "
                                 "%d block indices" % (len(grid), len(names)),
                                 var)
        else:
            raise self.error("T.Kernel(...) as bx or as (bx, by, bz)", var)
        inner = Scope(scope, "kernel")
        ssa = []
        for i, n in enumerate(names):
            name = self.em.fresh(n or "b%s" % "xyz"[i])
            ssa.append(name)
            if n:
                inner.names[n] = Value(name, "index")
        self.em.push()
        self.in_kernel = True
        self.kernel_raster = None
        try:
            self.body(node.body, inner)
        finally:
            self.in_kernel = False
        header = "tile.kernel blocks(%s) in (%s) threads = %d" % (
            ", ".join(ssa), ", ".join(g.name for g in grid), threads)
        if self.kernel_raster is not None:
            header += " attributes {tile.raster = %d}" % self.kernel_raster
        self.em.pop(header, self.pos(node))

    def stmt_For(self, node, scope):
        if node.orelse:
            raise self.error("for ... else is not supported")
        it = node.iter
        fn = None
        if isinstance(it, ast.Call):
            fn = self.expr(it.func, scope)
        kind = T.BUILTINS.get(fn) if fn is not None else None
        if kind == "Parallel":
            return self.parallel(node, it, scope)
        if kind == "Pipelined":
            return self.pipelined(node, it, scope)
        if kind in ("serial", "unroll") or fn is builtins.range:
            return self.serial(node, it, scope)
        # A Python iterable: unrolled at parse time.
        seq = self.expr(it, scope)
        if self.is_ir(seq):
            raise self.error("cannot iterate over a kernel value", it)
        for v in seq:
            inner = Scope(scope, "block")
            self.assign(node.target, v, inner, node)
            self.body(node.body, inner)

    def loop_vars(self, target, count):
        if isinstance(target, ast.Name):
            names = [target.id]
        elif isinstance(target, (ast.Tuple, ast.List)) and all(
                isinstance(e, ast.Name) for e in target.elts):
            names = [e.id for e in target.elts]
        else:
            raise self.error("loop variables must be names", target)
        if len(names) != count:
            raise self.error("%d loop variables for %d extents"
                             % (len(names), count), target)
        return names

    def parallel(self, node, call, scope):
        extents = []
        for a in call.args:
            v = self.py_eval(a, scope)
            if not isinstance(v, int) or v <= 0:
                raise self.error("T.Parallel extents are positive ints known "
                                 "when the kernel is parsed, got %r" % (v,), a)
            extents.append(v)
        names = self.loop_vars(node.target, len(extents))
        inner = Scope(scope, "parallel")
        ssa = []
        for n in names:
            name = self.em.fresh(n)
            ssa.append(name)
            inner.names[n] = Value(name, "index")
        self.em.push()
        self.parallel_depth += 1
        try:
            self.body(node.body, inner)
        finally:
            self.parallel_depth -= 1
        header = "tile.parallel (%s) in [%s]" % (
            ", ".join(ssa), ", ".join(str(e) for e in extents))
        self.em.pop(header, self.pos(node))

    def range_args(self, call, scope, what):
        args = [self.expr(a, scope) for a in call.args]
        if not 1 <= len(args) <= 3:
            raise self.error("%s takes (stop), (start, stop) or "
                             "(start, stop, step)" % what, call)
        if len(args) == 1:
            args = [0, args[0], 1]
        elif len(args) == 2:
            args = [args[0], args[1], 1]
        return [self.index(a, call) for a in args]

    def pipelined(self, node, call, scope):
        lb, ub, step = self.range_args(call, scope, "T.Pipelined")
        stages = 1
        for k in call.keywords:
            if k.arg == "num_stages":
                stages = self.py_eval(k.value, scope)
                if not isinstance(stages, int) or stages < 0:
                    raise self.error("num_stages must be an int, got %r"
                                     % (stages,), k.value)
            # order, stage, group, sync: scheduling hints, accepted.
        stages = builtins.max(stages, 1)
        name = self.loop_var(node)
        inner = Scope(scope, "loop")
        var = self.em.fresh(name)
        inner.names[name] = Value(var, "index")
        self.em.push()
        self.body(node.body, inner)
        self.em.pop("tile.pipelined %s = %s to %s step %s stages = %d"
                    % (var, lb.name, ub.name, step.name, stages),
                    self.pos(node))

    def loop_var(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error("one loop variable", node.target)
        return node.target.id

    def serial(self, node, call, scope):
        lb, ub, step = self.range_args(call, scope, "T.serial")
        name = self.loop_var(node)
        inner = Scope(scope, "loop")
        var = self.em.fresh(name)
        inner.names[name] = Value(var, "index")
        self.em.push()
        self.body(node.body, inner)
        self.em.pop("scf.for %s = %s to %s step %s"
                    % (var, lb.name, ub.name, step.name), self.pos(node))

    def stmt_If(self, node, scope):
        cond = self.expr(node.test, scope)
        if not self.is_ir(cond):
            # A Python value: decided now; the branch is not a scope.
            self.body(node.body if cond else node.orelse, scope)
            return
        c = self.to_bool(cond, node.test)
        self.em.push()
        self.body(node.body, Scope(scope, "branch"))
        if node.orelse:
            self.em.push()
            self.body(node.orelse, Scope(scope, "branch"))
            self.em.pop("scf.if %s" % c.name, self.pos(node),
                        middle="} else {")
        else:
            self.em.pop("scf.if %s" % c.name, self.pos(node))

    def stmt_While(self, node, scope):
        raise self.error("while loops are not supported: use "
                         "T.serial / T.Pipelined")

    # ------------------------------------------------------ expressions
    def py_eval(self, node, scope):
        v = self.expr(node, scope)
        if self.is_ir(v):
            raise self.error("needs a value known when the kernel is "
                             "parsed (a Python constant), not a kernel value",
                             node)
        return v

    def is_ir(self, v):
        return isinstance(v, (Value, Tile, TensorParam, Region, T.Symbol))

    def expr(self, node, scope):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error("%s expressions are not supported in a prim_func"
                             % type(node).__name__, node)
        saved = self.node
        self.node = node
        try:
            return method(node, scope)
        finally:
            self.node = saved

    def expr_Constant(self, node, scope):
        return node.value

    def expr_Name(self, node, scope):
        v = scope.lookup(node.id)
        if v is not _UNDEF:
            return v
        if node.id in self.closure:
            return self.closure[node.id]
        if node.id in self.globals:
            return self.globals[node.id]
        if hasattr(builtins, node.id):
            return getattr(builtins, node.id)
        raise self.error("name '%s' is not defined (names assigned inside a "
                         "kernel loop or branch are local to it)" % node.id,
                         node)

    def expr_Attribute(self, node, scope):
        base = self.expr(node.value, scope)
        if isinstance(base, (Tile, TensorParam)):
            if node.attr == "dtype":
                return base.dtype
            if node.attr == "shape":
                return base.shape
            raise self.error("a tile or tensor has .dtype and .shape, not "
                             ".%s" % node.attr, node)
        if self.is_ir(base):
            raise self.error("a kernel value has no attribute .%s"
                             % node.attr, node)
        try:
            return getattr(base, node.attr)
        except AttributeError:
            if base is T:
                raise self.error("T.%s is not part of tessera.language (see "
                                 "docs/python.md for the supported names)"
                                 % node.attr, node)
            raise self.error("%r has no attribute %r" % (base, node.attr),
                             node)

    def expr_Tuple(self, node, scope):
        return tuple(self.expr(e, scope) for e in node.elts)

    def expr_List(self, node, scope):
        return [self.expr(e, scope) for e in node.elts]

    def expr_Dict(self, node, scope):
        return {self.py_eval(k, scope): self.py_eval(v, scope)
                for k, v in zip(node.keys, node.values)}

    def expr_JoinedStr(self, node, scope):
        return self.py_eval_node(node, scope)

    def py_eval_node(self, node, scope):
        names = {}
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                v = self.expr_Name(n, scope)
                if self.is_ir(v):
                    raise self.error("needs a Python value", n)
                names[n.id] = v
        expr = ast.Expression(node)
        return eval(compile(ast.fix_missing_locations(expr), self.filename,
                            "eval"), {}, names)

    def expr_IfExp(self, node, scope):
        cond = self.expr(node.test, scope)
        if not self.is_ir(cond):
            return self.expr(node.body if cond else node.orelse, scope)
        return self.select(cond, self.expr(node.body, scope),
                           self.expr(node.orelse, scope), node)

    def expr_UnaryOp(self, node, scope):
        v = self.expr(node.operand, scope)
        op = type(node.op)
        if not self.is_ir(v):
            return {ast.USub: operator.neg, ast.UAdd: operator.pos,
                    ast.Not: operator.not_, ast.Invert: operator.invert}[op](v)
        v = self.as_value(v)
        if op is ast.UAdd:
            return v
        if op is ast.USub:
            if v.const is not None:
                return self.const(-v.const, v.type)
            if D.is_float(v.type):
                return self.emit1("arith.negf %s : %s" % (v.name, v.type),
                                  v.type)
            return self.binop(ast.Sub, self.const(0, v.type), v, node)
        if op is ast.Not:
            b = self.to_bool(v, node)
            return self.emit1("arith.xori %s, %s : i1"
                              % (b.name, self.const(True, "i1").name), "i1")
        if op is ast.Invert:
            return self.binop(ast.BitXor, v, self.const(-1, v.type), node)
        raise self.error("unsupported unary operator", node)

    def expr_BinOp(self, node, scope):
        return self.binop(type(node.op), self.expr(node.left, scope),
                          self.expr(node.right, scope), node)

    def expr_BoolOp(self, node, scope):
        is_and = isinstance(node.op, ast.And)
        result = None
        for v in node.values:
            x = self.expr(v, scope)
            if not self.is_ir(x):
                # Python short-circuit on constants.
                if is_and and not x:
                    return False if result is None else self.const(False, "i1")
                if not is_and and x:
                    return True if result is None else self.const(True, "i1")
                continue
            b = self.to_bool(x, v)
            if result is None:
                result = b
            else:
                result = self.emit1("arith.%s %s, %s : i1" % (
                    "andi" if is_and else "ori", result.name, b.name), "i1")
        if result is None:
            return is_and
        return result

    def expr_Compare(self, node, scope):
        left = self.expr(node.left, scope)
        result = None
        for op, rnode in zip(node.ops, node.comparators):
            right = self.expr(rnode, scope)
            c = self.compare(type(op), left, right, node)
            if result is None:
                result = c
            elif self.is_ir(result) or self.is_ir(c):
                result = self.expr_and(result, c, node)
            else:
                result = result and c
            left = right
        return result

    def expr_and(self, a, b, node):
        a = self.to_bool(a, node)
        b = self.to_bool(b, node)
        return self.emit1("arith.andi %s, %s : i1" % (a.name, b.name), "i1")

    def expr_Subscript(self, node, scope):
        base = self.expr(node.value, scope)
        if isinstance(base, Tile):
            return self.load(base, self.tile_indices(base, node.slice, scope))
        if isinstance(base, TensorParam):
            return Region(base, self.region_specs(base, node.slice, scope))
        if self.is_ir(base):
            raise self.error("cannot index a scalar kernel value", node)
        idx = self.expr(node.slice, scope)
        if self.is_ir(idx):
            raise self.error("cannot index a Python value with a kernel "
                             "value", node)
        return base[idx]

    def expr_Slice(self, node, scope):
        return slice(*(self.expr(x, scope) if x is not None else None
                       for x in (node.lower, node.upper, node.step)))

    def expr_Call(self, node, scope):
        fn = self.expr(node.func, scope)
        name = T.BUILTINS.get(fn) if _hashable(fn) else None
        if name is not None:
            handler = getattr(self, "call_" + name, None)
            if handler is None:
                raise self.error("T.%s is only valid as a 'with' or 'for' "
                                 "target" % name, node)
            return handler(node, scope)
        if isinstance(fn, D.DType):
            if len(node.args) != 1:
                raise self.error("T.%s(x) takes one value" % fn, node)
            v = self.expr(node.args[0], scope)
            return self.cast_to(v, fn, node)
        if fn is T.TensorAnnotation or fn is T.Tensor:
            raise self.error("T.Tensor describes a parameter; tiles come "
                             "from T.alloc_shared / alloc_fragment", node)
        args = [self.expr(a, scope) for a in node.args]
        kwargs = {k.arg: self.expr(k.value, scope) for k in node.keywords}
        if any(self.is_ir(a) for a in args + list(kwargs.values())):
            # Python builtins on kernel values map to their T.* meaning.
            if fn is builtins.max and len(args) == 2:
                return self.minmax("max", args[0], args[1], node)
            if fn is builtins.min and len(args) == 2:
                return self.minmax("min", args[0], args[1], node)
            if fn is builtins.abs and len(args) == 1:
                return self.unary_math("abs", args[0], node)
            if fn is builtins.float and len(args) == 1:
                return self.cast_to(args[0], "float32", node)
            if fn is builtins.int and len(args) == 1:
                return self.cast_to(args[0], "int32", node)
            raise self.error("%s cannot take kernel values inside a "
                             "prim_func" % getattr(fn, "__name__", fn), node)
        try:
            return fn(*args, **kwargs)
        except TesseraError:
            raise
        except Exception as e:
            raise self.error("%s: %s" % (type(e).__name__, e), node) from e

    # ------------------------------------------------------ T.* handlers
    def bind_args(self, node, scope, names, defaults=None, evaluate=True):
        defaults = defaults or {}
        out = dict(defaults)
        if len(node.args) > len(names):
            raise self.error("too many arguments", node)
        for n, a in zip(names, node.args):
            out[n] = self.expr(a, scope) if evaluate else a
        for k in node.keywords:
            if k.arg not in names:
                raise self.error("unexpected keyword argument '%s'" % k.arg,
                                 k.value)
            out[k.arg] = self.expr(k.value, scope) if evaluate else k.value
        for n in names:
            if n not in out:
                raise self.error("missing argument '%s'" % n, node)
        return out

    def call_Kernel(self, node, scope):
        raise self.error("T.Kernel is used as 'with T.Kernel(...) as ...'",
                         node)

    def call_Parallel(self, node, scope):
        raise self.error("T.Parallel is used as 'for i, j in T.Parallel("
                         "...)'", node)

    call_Pipelined = call_Parallel
    call_serial = call_Parallel
    call_unroll = call_Parallel

    def alloc(self, node, scope, space):
        a = self.bind_args(node, scope, ["shape", "dtype", "scope"],
                           {"scope": None})
        shape = a["shape"]
        if isinstance(shape, int):
            shape = (shape,)
        if self.is_ir(shape) or not isinstance(shape, (tuple, list)) or \
                not all(isinstance(d, int) and not isinstance(d, bool)
                        for d in shape):
            raise self.error("tile shapes are static: a tuple of ints known "
                             "when the kernel is parsed, got %r" % (shape,),
                             node.args[0] if node.args else node)
        try:
            ir = D.to_ir(a["dtype"])
        except ValueError as e:
            raise self.error(str(e), node.args[1] if len(node.args) > 1
                             else node)
        hint = getattr(self, "name_hint", None)
        name = self.em.fresh(hint or "tile")
        tile = Tile(name, shape, ir, space, hint or "_")
        self.em.op("%s = tile.alloc : %s" % (name, tile.ir_type),
                   self.pos(node))
        return tile

    def call_alloc_shared(self, node, scope):
        return self.alloc(node, scope, "shared")

    def call_alloc_fragment(self, node, scope):
        return self.alloc(node, scope, "fragment")

    def call_alloc_local(self, node, scope):
        return self.alloc(node, scope, "local")

    def copy_side(self, v, node):
        if isinstance(v, Tile):
            return v.name, v.ir_type, v
        if isinstance(v, TensorParam):
            v = Region(v, [])
        if isinstance(v, Region):
            return None, None, v
        raise self.error("T.copy copies between tensor regions (A[r, c], "
                         "A[r0:r1, :]) and tiles, got %r" % (v,), node)

    def region_operand(self, region, tile, node):
        """`%A[%o0, %o1]` for a region that `tile` fills or empties."""
        t = region.tensor
        rank = len(t.shape)
        specs = list(region.specs)
        if len(specs) > rank:
            raise self.error("%d indices for the rank-%d tensor '%s'"
                             % (len(specs), rank, t.pyname), node)
        specs += [("slice", 0, None)] * (rank - len(specs))
        lead = rank - len(tile.shape) if tile is not None else 0
        offsets = []
        for d, s in enumerate(specs):
            start = s[1]
            if s[0] == "slice":
                stop = s[2]
                extent = None
                if isinstance(stop, int) and isinstance(start, int):
                    extent = stop - start
                elif stop is None and isinstance(start, int) and \
                        isinstance(t.shape[d], int):
                    extent = t.shape[d] - start
                elif isinstance(stop, Value) and isinstance(start, Value):
                    extent = self.static_difference(stop, start)
                if tile is not None and d < lead and extent not in (None, 1):
                    raise self.error(
                        "T.copy: a rank-%d tile covers the last %d dims of "
                        "'%s'; dim %d is sliced %d wide, so the slice does "
                        "not match the tile (tessera copies the trailing "
                        "dims: put the sliced dims last)"
                        % (len(tile.shape), len(tile.shape), t.pyname, d,
                           extent), node)
                if tile is not None and d >= lead and extent is not None \
                        and extent != tile.shape[d - lead]:
                    raise self.error(
                        "T.copy: the slice of '%s' is %d wide along dim %d "
                        "but the tile '%s' is %d" % (
                            t.pyname, extent, d, tile.pyname,
                            tile.shape[d - lead]), node)
            offsets.append(self.index(start, node).name)
        return "%s[%s]" % (t.name, ", ".join(offsets)), t.ir_type

    def static_difference(self, stop, start):
        # (x + c1) - x: the frontend records constant offsets of adds.
        a, b = self.affine.get(stop.name), self.affine.get(start.name)
        if a and b and a[0] == b[0]:
            return a[1] - b[1]
        if a and a[0] == start.name:
            return a[1]
        return None

    @property
    def affine(self):
        if not hasattr(self, "_affine"):
            self._affine = {}
        return self._affine

    def call_copy(self, node, scope):
        a = self.bind_args(node, scope, ["src", "dst", "coalesced_width",
                                         "disable_tma", "eviction_policy"],
                           {"coalesced_width": None, "disable_tma": False,
                            "eviction_policy": None})
        sname, stype, src = self.copy_side(a["src"], node)
        dname, dtype, dst = self.copy_side(a["dst"], node)
        if isinstance(src, Region) and isinstance(dst, Region):
            raise self.error("T.copy from tensor to tensor: copy through a "
                             "tile", node)
        if isinstance(src, Region):
            sname, stype = self.region_operand(src, dst, node)
        if isinstance(dst, Region):
            dname, dtype = self.region_operand(dst, src, node)
        self.em.op("tile.copy %s, %s : %s, %s" % (sname, dname, stype, dtype),
                   self.pos(node))

    def call_gemm(self, node, scope):
        a = self.bind_args(node, scope, ["A", "B", "C", "transpose_A",
                                         "transpose_B", "policy",
                                         "clear_accum", "k_pack", "wg_wait"],
                           {"transpose_A": False, "transpose_B": False,
                            "policy": None, "clear_accum": False,
                            "k_pack": 1, "wg_wait": 0})
        for n in ("A", "B", "C"):
            if not isinstance(a[n], Tile):
                raise self.error("T.gemm operand %s must be a tile, got %r"
                                 % (n, a[n]), node)
        for n in ("transpose_A", "transpose_B", "clear_accum"):
            if self.is_ir(a[n]):
                raise self.error("T.gemm: %s must be a Python bool" % n, node)
        flags = ""
        if a["transpose_A"]:
            flags += " transpose_a"
        if a["transpose_B"]:
            flags += " transpose_b"
        if a["clear_accum"]:
            flags += " clear"
        A, B, C = a["A"], a["B"], a["C"]
        self.em.op("tile.gemm %s, %s, %s%s : %s, %s, %s" % (
            A.name, B.name, C.name, flags, A.ir_type, B.ir_type, C.ir_type),
            self.pos(node))

    def need_tile(self, v, what, node):
        if not isinstance(v, Tile):
            raise self.error("%s takes a tile, got %r" % (what, v), node)
        return v

    def call_clear(self, node, scope):
        t = self.need_tile(self.bind_args(node, scope, ["buffer"])["buffer"],
                           "T.clear", node)
        self.em.op("tile.clear %s : %s" % (t.name, t.ir_type), self.pos(node))

    def call_fill(self, node, scope):
        a = self.bind_args(node, scope, ["buffer", "value"])
        t = self.need_tile(a["buffer"], "T.fill", node)
        v = self.convert(self.as_value(a["value"], t.ir_dtype), t.ir_dtype)
        self.em.op("tile.fill %s, %s : %s, %s" % (t.name, v.name, t.ir_type,
                                                  t.ir_dtype), self.pos(node))

    def reduce(self, node, scope, kind):
        a = self.bind_args(node, scope, ["buffer", "out", "dim", "clear"],
                           {"dim": -1, "clear": True})
        src = self.need_tile(a["buffer"], "T.reduce_" + kind, node)
        dst = self.need_tile(a["out"], "T.reduce_" + kind, node)
        dim, clear = a["dim"], a["clear"]
        if not isinstance(dim, int) or self.is_ir(clear):
            raise self.error("T.reduce_%s: dim and clear are Python values"
                             % kind, node)
        if dim < 0:
            dim += len(src.shape)
        self.em.op("tile.reduce %s %s, %s dim = %d%s : %s, %s" % (
            kind, src.name, dst.name, dim, "" if clear else " accumulate",
            src.ir_type, dst.ir_type), self.pos(node))

    def call_reduce_max(self, node, scope):
        self.reduce(node, scope, "max")

    def call_reduce_sum(self, node, scope):
        self.reduce(node, scope, "sum")

    def call_reduce_min(self, node, scope):
        self.reduce(node, scope, "min")

    def atomic(self, node, scope, kind):
        a = self.bind_args(node, scope, ["dst", "value"])
        dst, src = a["dst"], a["value"]
        if isinstance(dst, TensorParam):
            dst = Region(dst, [])
        if not isinstance(dst, Region) or not isinstance(src, Tile):
            raise self.error(
                "T.atomic_%s(dst, value): tessera supports a tile added "
                "into a tensor region (T.atomic_%s(C[r, c], C_local)); "
                "element-wise atomics inside T.Parallel are not supported"
                % (kind, kind), node)
        operand, ttype = self.region_operand(dst, src, node)
        self.em.op("tile.atomic %s %s, %s : %s, %s" % (
            kind, src.name, operand, src.ir_type, ttype), self.pos(node))

    def call_atomic_add(self, node, scope):
        self.atomic(node, scope, "add")

    def call_atomic_max(self, node, scope):
        self.atomic(node, scope, "max")

    def call_use_swizzle(self, node, scope):
        # A block order: panel_size block rows walked together
        # (tile.raster); enable=False keeps the linear order; without
        # panel_size the compiler chooses. `order` is accepted.
        a = self.bind_args(node, scope, ["panel_size", "order", "enable"],
                           {"panel_size": None, "order": "row",
                            "enable": True})
        if not self.in_kernel:
            raise self.error("T.use_swizzle belongs inside a T.Kernel", node)
        enable, panel = a["enable"], a["panel_size"]
        if self.is_ir(enable) or self.is_ir(panel):
            raise self.error("T.use_swizzle takes values known when the "
                             "kernel is parsed", node)
        if not enable:
            self.kernel_raster = 1
        elif panel is not None:
            if not isinstance(panel, int) or panel < 1:
                raise self.error("T.use_swizzle: panel_size must be a "
                                 "positive int, got %r" % (panel,), node)
            self.kernel_raster = panel

    def call_ceildiv(self, node, scope):
        a = self.bind_args(node, scope, ["a", "b"])
        x, y = a["a"], a["b"]
        if not self.is_ir(x) and not self.is_ir(y):
            return -(-x // y)
        t = self.unify(x, y)
        if not D.is_int(t) and t != "index":
            raise self.error("T.ceildiv takes integers", node)
        xv, yv = self.convert(self.as_value(x, t), t), \
            self.convert(self.as_value(y, t), t)
        return self.emit1("arith.ceildivsi %s, %s : %s" % (xv.name, yv.name,
                                                           t), t)

    def call_max(self, node, scope):
        a = self.bind_args(node, scope, ["a", "b"])
        return self.minmax("max", a["a"], a["b"], node)

    def call_min(self, node, scope):
        a = self.bind_args(node, scope, ["a", "b"])
        return self.minmax("min", a["a"], a["b"], node)

    def minmax(self, which, x, y, node):
        if not self.is_ir(x) and not self.is_ir(y):
            return builtins.max(x, y) if which == "max" else builtins.min(x, y)
        t = self.unify(x, y)
        xv = self.convert(self.as_value(x, t), t)
        yv = self.convert(self.as_value(y, t), t)
        if D.is_float(t):
            op = "arith.maximumf" if which == "max" else "arith.minimumf"
        else:
            op = "arith.maxsi" if which == "max" else "arith.minsi"
        return self.emit1("%s %s, %s : %s" % (op, xv.name, yv.name, t), t)

    def unary_math(self, name, x, node):
        if not self.is_ir(x):
            if name == "abs":
                return builtins.abs(x)
            return _PY_MATH[name](x)
        v = self.as_value(x)
        if name == "abs" and not D.is_float(v.type):
            return self.emit1("math.absi %s : %s" % (v.name, v.type), v.type)
        if not D.is_float(v.type):
            v = self.convert(v, "f32")
        if name == "abs":
            return self.emit1("math.absf %s : %s" % (v.name, v.type), v.type)
        flags = (" fastmath<afn>" if self.fast_math and name in _APPROXIMABLE
                 else "")
        return self.emit1("%s %s%s : %s" % (_MATH_FLOAT[name], v.name, flags,
                                            v.type), v.type)

    def _math(name):
        def handler(self, node, scope):
            a = self.bind_args(node, scope, ["x"])
            return self.unary_math(name, a["x"], node)
        return handler

    call_exp = _math("exp")
    call_exp2 = _math("exp2")
    call_log = _math("log")
    call_log2 = _math("log2")
    call_sqrt = _math("sqrt")
    call_rsqrt = _math("rsqrt")
    call_tanh = _math("tanh")
    call_abs = _math("abs")
    call_floor = _math("floor")
    call_ceil = _math("ceil")

    def call_if_then_else(self, node, scope):
        a = self.bind_args(node, scope, ["cond", "then_value", "else_value"])
        if not self.is_ir(a["cond"]):
            return a["then_value"] if a["cond"] else a["else_value"]
        return self.select(a["cond"], a["then_value"], a["else_value"], node)

    def call_infinity(self, node, scope):
        a = self.bind_args(node, scope, ["dtype"])
        try:
            ir = D.to_ir(a["dtype"])
        except ValueError as e:
            raise self.error(str(e), node)
        if not D.is_float(ir):
            raise self.error("T.infinity needs a float dtype, got %r"
                             % a["dtype"], node)
        return self.const(float("inf"), ir)

    def call_cast(self, node, scope):
        a = self.bind_args(node, scope, ["value", "dtype"])
        return self.cast_to(a["value"], a["dtype"], node)

    def cast_to(self, v, dtype, node):
        try:
            ir = D.to_ir(dtype)
        except ValueError as e:
            raise self.error(str(e), node)
        if not self.is_ir(v):
            return self.const(v, ir)
        return self.convert(self.as_value(v), ir)

    # ------------------------------------------------------------ IR ops
    def emit1(self, text, type, hint="v"):
        name = self.em.fresh(hint)
        self.em.op("%s = %s" % (name, text), self.pos())
        return Value(name, type)

    def const(self, value, type):
        if type == "i1":
            name = self.em.fresh("true" if value else "false")
            self.em.op("%s = arith.constant %s" % (
                name, "true" if value else "false"), self.pos())
            return Value(name, "i1", builtins.bool(value))
        if D.is_float(type):
            value = builtins.float(value)
            lit = D.float_literal(value, type)
            if lit is None:  # fp8: through f32
                return self.convert(self.const(value, "f32"), type)
            name = self.em.fresh("cst")
            self.em.op("%s = arith.constant %s : %s" % (name, lit, type),
                       self.pos())
            return Value(name, type, value)
        if builtins.isinstance(value, builtins.float):
            if value != int(value):
                raise self.error("the float %r used as an integer" % value)
        value = int(value)
        name = self.em.fresh("c%d" % value if value >= 0 else "cm")
        self.em.op("%s = arith.constant %d : %s" % (name, value, type),
                   self.pos())
        return Value(name, type, value)

    def symbol_value(self, sym):
        v = self.symbol_values.get(sym.name)
        if v is not None:
            return v
        if sym.name not in self.symbols:
            raise self.error("symbolic dimension '%s' is not a dimension of "
                             "any tensor parameter" % sym.name)
        tensor, dim = self.symbols[sym.name]
        name = self.em.fresh(sym.name)
        self.em.op("%s = tile.dim %s, %d : %s" % (name, tensor.name, dim,
                                                 tensor.ir_type), self.pos(),
                   block=self.func_block)
        v = Value(name, "index")
        self.symbol_values[sym.name] = v
        return v

    def as_value(self, x, like=None):
        """A kernel value for x; Python constants take the type `like`."""
        if isinstance(x, Value):
            return x
        if isinstance(x, T.Symbol):
            return self.symbol_value(x)
        if isinstance(x, (TensorParam, Region)):
            t = x if isinstance(x, TensorParam) else x.tensor
            raise self.error(
                "global tensor '%s' is read element by element: tessera "
                "reads tensors through T.copy(%s[...], tile) (copy into a "
                "fragment, then compute on it in T.Parallel)"
                % (t.pyname, t.pyname))
        if isinstance(x, Tile):
            raise self.error("tile '%s' is not a scalar: index its elements "
                             "(%s[i, j]) inside T.Parallel"
                             % (x.pyname, x.pyname))
        if isinstance(x, builtins.bool):
            return self.const(x, "i1")
        if isinstance(x, int):
            if like is None or like == "i1":
                like = "index"
            return self.const(x, like)
        if isinstance(x, builtins.float):
            if like is None or not D.is_float(like):
                like = "f32"
            return self.const(x, like)
        raise self.error("%r is not a number" % (x,))

    def type_of(self, x):
        if isinstance(x, Value):
            return x.type
        if isinstance(x, T.Symbol):
            return "index"
        return None

    def unify(self, x, y):
        """The common type of two operands (Python constants adapt)."""
        tx, ty = self.type_of(x), self.type_of(y)
        if tx is None and ty is None:
            raise self.error("no kernel value among the operands")
        if tx is None or ty is None:
            t = tx or ty
            other = y if tx is not None else x
            if isinstance(other, builtins.float) and not \
                    isinstance(other, builtins.bool) and not D.is_float(t):
                return "f32"
            return t
        if tx == ty:
            return tx
        fx, fy = D.is_float(tx), D.is_float(ty)
        if fx and fy:
            rx, ry = _FLOAT_RANK[tx], _FLOAT_RANK[ty]
            if rx == ry:
                return "f32"
            return tx if rx > ry else ty
        if fx:
            return tx
        if fy:
            return ty
        if "index" in (tx, ty):
            return "index"
        return tx if D.BITS[tx] >= D.BITS[ty] else ty

    def convert(self, v, to):
        if v.type == to:
            return v
        if v.const is not None and not (to == "i1" and D.is_float(v.type)):
            if D.is_float(to) or not builtins.isinstance(v.const,
                                                         builtins.float):
                return self.const(v.const, to)
        fr = v.type
        fi, ti = not D.is_float(fr), not D.is_float(to)
        if fi and ti:
            if fr == "index" or to == "index":
                return self.emit1("arith.index_cast %s : %s to %s"
                                  % (v.name, fr, to), to)
            if fr == "i1":
                return self.emit1("arith.extui %s : i1 to %s" % (v.name, to),
                                  to)
            op = "arith.extsi" if D.BITS[to] > D.BITS[fr] else "arith.trunci"
            return self.emit1("%s %s : %s to %s" % (op, v.name, fr, to), to)
        if fi:  # int -> float
            if fr == "index":
                v = self.convert(v, "i64")
                fr = "i64"
            op = "arith.uitofp" if fr == "i1" else "arith.sitofp"
            return self.emit1("%s %s : %s to %s" % (op, v.name, fr, to), to)
        if ti:  # float -> int
            if to == "i1":
                zero = self.const(0.0, fr)
                return self.emit1("arith.cmpf une, %s, %s : %s"
                                  % (v.name, zero.name, fr), "i1")
            target = "i64" if to == "index" else to
            r = self.emit1("arith.fptosi %s : %s to %s" % (v.name, fr, target),
                           target)
            return self.convert(r, to)
        # float -> float
        if D.BITS[to] > D.BITS[fr] or (D.BITS[to] == D.BITS[fr] and
                                       to == "f32"):
            return self.emit1("arith.extf %s : %s to %s" % (v.name, fr, to),
                              to)
        if D.BITS[to] == D.BITS[fr]:  # f16 <-> bf16
            v = self.convert(v, "f32")
            fr = "f32"
        return self.emit1("arith.truncf %s : %s to %s" % (v.name, fr, to), to)

    def index(self, x, node):
        if isinstance(x, (Tile, TensorParam, Region)) or (
                not self.is_ir(x) and not isinstance(x, int)):
            raise self.error("expected an integer index, got %r" % (x,), node)
        v = self.as_value(x, "index")
        if D.is_float(v.type):
            raise self.error("expected an integer index, got a %s value"
                             % v.type, node)
        return self.convert(v, "index")

    def to_bool(self, x, node):
        v = self.as_value(x)
        if v.type == "i1":
            return v
        zero = self.const(0, v.type)
        if D.is_float(v.type):
            return self.emit1("arith.cmpf une, %s, %s : %s"
                              % (v.name, zero.name, v.type), "i1")
        return self.emit1("arith.cmpi ne, %s, %s : %s"
                          % (v.name, zero.name, v.type), "i1")

    def binop(self, op, x, y, node):
        if not self.is_ir(x) and not self.is_ir(y):
            try:
                return _PY_BINOPS[op](x, y)
            except KeyError:
                raise self.error("unsupported operator", node)
        for v in (x, y):
            if isinstance(v, (Tile, TensorParam, Region)):
                self.as_value(v)  # raises the message for its kind
        if op is ast.Pow:
            if isinstance(y, int) and not self.is_ir(y) and 0 <= y <= 8:
                xv = self.as_value(x)
                r = self.const(1, xv.type)
                for _ in range(y):
                    r = self.binop(ast.Mult, r, xv, node)
                return r
            t = self.unify(x, y)
            t = t if D.is_float(t) else "f32"
            xv = self.convert(self.as_value(x, t), t)
            yv = self.convert(self.as_value(y, t), t)
            return self.emit1("math.powf %s, %s : %s" % (xv.name, yv.name, t),
                              t)
        t = self.unify(x, y)
        if op is ast.Div and not D.is_float(t):
            # TileLang divides integers truncating, like C.
            pass
        xv = self.convert(self.as_value(x, t), t)
        yv = self.convert(self.as_value(y, t), t)
        if xv.const is not None and yv.const is not None:
            try:
                if D.is_float(t):
                    r = _PY_BINOPS[op](xv.const, yv.const)
                elif op is ast.Div:
                    r = int(xv.const / yv.const)
                else:
                    r = _PY_BINOPS[op](xv.const, yv.const)
                return self.const(r, t)
            except Exception:
                pass
        f = D.is_float(t)
        if f:
            names = {ast.Add: "addf", ast.Sub: "subf", ast.Mult: "mulf",
                     ast.Div: "divf", ast.Mod: "remf"}
            if op is ast.FloorDiv:
                q = self.emit1("arith.divf %s, %s : %s" % (xv.name, yv.name,
                                                           t), t)
                return self.emit1("math.floor %s : %s" % (q.name, t), t)
        else:
            names = {ast.Add: "addi", ast.Sub: "subi", ast.Mult: "muli",
                     ast.Div: "divsi", ast.FloorDiv: "floordivsi",
                     ast.Mod: "remsi", ast.BitAnd: "andi", ast.BitOr: "ori",
                     ast.BitXor: "xori", ast.LShift: "shli",
                     ast.RShift: "shrsi"}
        if op not in names:
            raise self.error("operator %s is not supported on %s values"
                             % (op.__name__, t), node)
        flags = (" fastmath<arcp>" if f and op is ast.Div and self.fast_math
                 else "")
        r = self.emit1("arith.%s %s, %s%s : %s" % (names[op], xv.name,
                                                   yv.name, flags, t), t)
        # Remember x + c for static slice extents (A[k*64:(k+1)*64]).
        if op in (ast.Add, ast.Sub) and not f:
            base = self.affine.get(xv.name, (xv.name, 0))
            if yv.const is not None:
                c = yv.const if op is ast.Add else -yv.const
                self.affine[r.name] = (base[0], base[1] + c)
        if op is ast.Mult and not f and xv.const is None and \
                yv.const is not None:
            # (k + 1) * 64 == k * 64 + 64: record both forms.
            lin = self.affine.get(xv.name)
            if lin is not None:
                key = ("mul", lin[0], yv.const)
                self.affine[r.name] = (key, lin[1] * yv.const)
            else:
                self.affine[r.name] = (("mul", xv.name, yv.const), 0)
        return r

    def compare(self, op, x, y, node):
        if not self.is_ir(x) and not self.is_ir(y):
            return _PY_CMP[op](x, y)
        if op not in _INT_CMP:
            raise self.error("unsupported comparison on kernel values", node)
        t = self.unify(x, y)
        xv = self.convert(self.as_value(x, t), t)
        yv = self.convert(self.as_value(y, t), t)
        if D.is_float(t):
            return self.emit1("arith.cmpf %s, %s, %s : %s" % (
                _FLOAT_CMP[op], xv.name, yv.name, t), "i1")
        return self.emit1("arith.cmpi %s, %s, %s : %s" % (
            _INT_CMP[op], xv.name, yv.name, t), "i1")

    def select(self, cond, a, b, node):
        c = self.to_bool(cond, node)
        if not self.is_ir(a) and not self.is_ir(b):
            t = "f32" if isinstance(a, builtins.float) or isinstance(
                b, builtins.float) else "index"
        else:
            t = self.unify(a, b)
        av = self.convert(self.as_value(a, t), t)
        bv = self.convert(self.as_value(b, t), t)
        return self.emit1("arith.select %s, %s, %s : %s" % (
            c.name, av.name, bv.name, t), t)

    # ------------------------------------------------------ tiles, tensors
    def index_list(self, sl, scope):
        if isinstance(sl, ast.Tuple):
            return list(sl.elts)
        return [sl]

    def tile_indices(self, tile, sl, scope):
        nodes = self.index_list(sl, scope)
        if len(nodes) != len(tile.shape):
            raise self.error("tile '%s' has rank %d; indexed with %d indices"
                             % (tile.pyname, len(tile.shape), len(nodes)), sl)
        out = []
        for n in nodes:
            if isinstance(n, ast.Slice):
                raise self.error("slices of tiles are not supported; index "
                                 "elements inside T.Parallel", n)
            out.append(self.index(self.expr(n, scope), n))
        return out

    def load(self, tile, idx):
        return self.emit1("tile.load %s[%s] : %s" % (
            tile.name, ", ".join(i.name for i in idx), tile.ir_type),
            tile.ir_dtype, hint=tile.pyname.lstrip("_") or "v")

    def store(self, tile, idx, value):
        v = self.convert(self.as_value(value, tile.ir_dtype), tile.ir_dtype)
        self.em.op("tile.store %s, %s[%s] : %s" % (
            v.name, tile.name, ", ".join(i.name for i in idx), tile.ir_type),
            self.pos())

    def region_specs(self, tensor, sl, scope):
        specs = []
        for n in self.index_list(sl, scope):
            if isinstance(n, ast.Slice):
                if n.step is not None:
                    raise self.error("strided slices are not supported", n)
                start = self.expr(n.lower, scope) if n.lower else 0
                stop = self.expr(n.upper, scope) if n.upper else None
                if isinstance(start, T.Symbol):
                    start = self.symbol_value(start)
                if isinstance(stop, T.Symbol):
                    stop = self.symbol_value(stop)
                if isinstance(start, Value) and not isinstance(stop, Value) \
                        and stop is not None:
                    stop = self.as_value(stop, start.type)
                if isinstance(stop, Value) and not isinstance(start, Value):
                    start = self.as_value(start, stop.type)
                if isinstance(start, Value):
                    start = self.index(start, n)
                if isinstance(stop, Value):
                    stop = self.index(stop, n)
                specs.append(("slice", start, stop))
            else:
                specs.append(("point", self.expr(n, scope)))
        return specs


def _hashable(x):
    try:
        hash(x)
        return True
    except TypeError:
        return False
