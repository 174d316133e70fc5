"""The program families of gen_tile_programs.py. Each module has
generate(seed) -> description (a plain dict, JSON-serializable, that
scalar_oracle.py evaluates on its own), text(description) -> tile IR,
shape_args(description, shape) -> the --shape symbols, describe(description)
and shrink(description) -> smaller variants, simplest first."""
from . import attn, b2b, gemm, multi

FAMILIES = {"gemm": gemm, "attn": attn, "b2b": b2b, "multi": multi}
# `mix`: seed s is family MIX[s % 4]'s seed s.
MIX = ["gemm", "attn", "b2b", "multi"]


def narrowed(desc):
    """The dtype an intermediate of the program is cast to (attention's P,
    the MLP's H), or None: one element of it rounded the other way by a
    last-bit difference of the exp before it moves the output by up to
    about that dtype's unit roundoff."""
    mod = module(desc)
    return mod.narrowed(desc) if hasattr(mod, "narrowed") else None


def module(desc):
    return FAMILIES[desc["family"]]


def generate(family, seed, targets=()):
    """Family `family`'s program `seed` (`mix`: family MIX[seed % 4]), with
    what `targets` cannot compile yet replaced (the family's `restrict`)."""
    if family == "mix":
        family = MIX[seed % len(MIX)]
    mod = FAMILIES[family]
    d = mod.generate(seed)
    return mod.restrict(d, targets) if hasattr(mod, "restrict") else d
