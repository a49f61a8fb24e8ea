"""The encoding of reclaim's timeline records (docs/records.md, "timeline").

One series of counts is one string: per value its difference from the one
before (the first from 0), zigzagged (0, -1, 1, -2 ... to 0, 1, 2, 3
...), five bits a character from ALPHABET, lowest first; characters 32-63
say more follow. The kernel's encoder is bench/rc_timeline.c; checklog and
the results tools decode with this one.
"""

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
_DIGIT = {c: i for i, c in enumerate(ALPHABET)}
# The kernel's values are 64-bit: 13 characters of 5 bits hold any of them.
# A longer run of continuation characters is not its encoding (and would
# make one huge integer, growing by 5 bits a character: quadratic time).
MAX_CHARS = 13


class DecodeError(ValueError):
    """A string that is not the kernel's encoding."""


def decode(text):
    """The counts a series string holds (DecodeError if malformed)."""
    out, prev, i = [], 0, 0
    while i < len(text):
        z, shift = 0, 0
        while True:
            if i >= len(text):
                raise DecodeError("a value cut short")
            c = _DIGIT.get(text[i])
            if c is None:
                raise DecodeError(f"{text[i]!r} is not in the alphabet")
            if shift == 5 * MAX_CHARS:
                raise DecodeError(f"a value longer than {MAX_CHARS} characters (64 bits)")
            z |= (c & 31) << shift
            shift += 5
            i += 1
            if not c & 32:
                break
        prev += (z >> 1) ^ -(z & 1)
        if prev < 0:
            raise DecodeError("a count below 0")
        out.append(prev)
    return out


def encode(values):
    """The inverse of decode (for tests and synthetic records)."""
    out, prev = [], 0
    for v in values:
        d = v - prev
        prev = v
        z = (d << 1) if d >= 0 else ((-d) << 1) - 1
        while True:
            c, z = z & 31, z >> 5
            out.append(ALPHABET[c | (32 if z else 0)])
            if not z:
                break
    return "".join(out)
