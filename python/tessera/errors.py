"""Exceptions of the tessera Python package.

Every error a kernel author can cause is a :class:`TesseraError` whose message
starts with ``file.py:line:col: error:`` pointing at the author's own code:
frontend errors (a wrong dtype string, an unknown T.* name) are raised while
the kernel's AST is read; verifier and pass errors come from the C++ compiler,
whose diagnostics carry the same positions (the IR's locations are the Python
file's), and are raised as :class:`CompileError`.
"""

import linecache
import re

__all__ = ["TesseraError", "CompileError", "LaunchError"]


class TesseraError(Exception):
    """An error in a tessera kernel, at ``filename:lineno:col``."""

    def __init__(self, message, filename=None, lineno=None, col=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        super().__init__(self._format())

    def _format(self):
        if not self.filename or not self.lineno:
            return self.message
        col = self.col or 1
        text = "%s:%d:%d: error: %s" % (self.filename, self.lineno, col,
                                        self.message)
        line = linecache.getline(self.filename, self.lineno)
        if line.strip():
            text += "\n    " + line.rstrip("\n")
            indent = len(line) - len(line.lstrip())
            caret = max(col - 1, indent)
            text += "\n    " + " " * caret + "^"
        return text


_DIAG = re.compile(r"^(?P<file>[^\n]+?):(?P<line>\d+):(?P<col>\d+): error: "
                   r"(?P<msg>.*)$", re.M)


class CompileError(TesseraError):
    """The C++ compiler rejected a kernel; ``diagnostics`` holds every
    message it printed (``file:line:col: error: ...`` lines, notes below)."""

    def __init__(self, diagnostics):
        self.diagnostics = diagnostics.rstrip("\n")
        first = _DIAG.search(self.diagnostics)
        Exception.__init__(self, self.diagnostics)
        self.message = first.group("msg") if first else self.diagnostics
        self.filename = first.group("file") if first else None
        self.lineno = int(first.group("line")) if first else None
        self.col = int(first.group("col")) if first else None

    def __str__(self):
        text = self.diagnostics
        if self.filename and self.lineno:
            line = linecache.getline(self.filename, self.lineno)
            if line.strip():
                text += "\n    " + line.rstrip("\n")
        return text


class LaunchError(RuntimeError):
    """The runtime refused a launch (argument dtype, shape, device, ...) or
    the device reported a failure."""
