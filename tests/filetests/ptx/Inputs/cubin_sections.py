"""cubin_sections.py CUBIN SECTION...: the bytes of the named ELF sections (hex, one line each)
and the size of every .text.<function> section, for comparing two cubins (debug_roundtrip.test)."""
import struct
import sys


def sections(path):
    data = open(path, "rb").read()
    # ELF64 little endian: section header table offset, entry size, count, names index.
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx]
    out = {}
    for h in heads:
        start = names[4] + h[0]
        name = data[start:data.index(b"\0", start)].decode()
        out[name] = data[h[4]:h[4] + h[5]] if h[1] != 8 else b"\0" * h[5]  # SHT_NOBITS
    return out


secs = sections(sys.argv[1])
for name in sys.argv[2:]:
    print(name, secs[name].hex() if name in secs else "missing")
for name in sorted(secs):
    if name.startswith(".text."):
        print(name, "size", len(secs[name]))
