#!/usr/bin/env python3
# Write a copy of a raw BTF file with one kind of damage, for tests/host/btf.sh.
#   btf-damage.py IN OUT func-name FUNC     FUNC's name offset past the strings
#   btf-damage.py IN OUT param-type FUNC    FUNC's first parameter: a type id past the last
#   btf-damage.py IN OUT return-type FUNC   FUNC's return type: a type id past the last
#   btf-damage.py IN OUT member-type STRUCT STRUCT's first member: a type id past the last
#   btf-damage.py IN OUT bit-offset STRUCT  STRUCT's last member at bit 2^32 - 8 (no kflag)
#   btf-damage.py IN OUT ptr-loop FUNC      FUNC's first parameter (a pointer) points to itself
#   btf-damage.py IN OUT const-loop FUNC    that pointer becomes a const of itself
#   btf-damage.py IN OUT anon-self STRUCT   STRUCT's first member: STRUCT, anonymous
#   btf-damage.py IN OUT empty-elems -      the first array of empty structs: 2^32 - 1 of them
#   btf-damage.py IN OUT flip SEED          one random byte of the type section changed
import random
import struct
import sys

KIND_PTR, KIND_ARRAY, KIND_STRUCT, KIND_UNION, KIND_CONST, KIND_FUNC = 2, 3, 4, 5, 10, 12
# Bytes after the 12-byte common header: fixed, and per vlen item.
EXTRA = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8), 13: (0, 8),
         14: (4, 0), 15: (0, 12), 17: (4, 0), 19: (0, 12)}


def parse(data):
    hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<5I", data, 4)
    types, pos = [None], hdr_len + type_off
    end = pos + type_len
    while pos < end:
        name_off, info, size = struct.unpack_from("<3I", data, pos)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        fixed, item = EXTRA.get(kind, (0, 0))
        types.append((pos, name_off, kind, vlen, size))
        pos += 12 + fixed + item * vlen
    strs = hdr_len + str_off
    return types, strs, str_len, (hdr_len + type_off, end)


def name(data, strs, off):
    return data[strs + off:data.index(b"\0", strs + off)].decode()


def find(data, types, strs, want, kind):
    for tid, (pos, name_off, k, vlen, size) in enumerate(types[1:], 1):
        if k == kind and name(data, strs, name_off) == want:
            return tid
    sys.exit("btf-damage: no %s of kind %d" % (want, kind))


def put(data, pos, value):
    struct.pack_into("<I", data, pos, value)


def main():
    src, dst, what = sys.argv[1:4]
    arg = sys.argv[4] if len(sys.argv) > 4 else ""
    data = bytearray(open(src, "rb").read())
    types, strs, str_len, (tstart, tend) = parse(data)
    past = len(types) + 1000
    if what in ("member-type", "bit-offset", "anon-self"):
        tid = find(data, types, strs, arg, KIND_STRUCT)
        pos, _, _, vlen, _ = types[tid]
        first = pos + 12
        if what == "member-type":
            put(data, first + 4, past)
        elif what == "anon-self":
            put(data, first, 0)
            put(data, first + 4, tid)
        else:
            put(data, first + 12 * (vlen - 1) + 8, 0xfffffff8)
    elif what == "empty-elems":
        for pos, _, kind, _, _ in types[1:]:
            elem = struct.unpack_from("<I", data, pos + 12)[0] if kind == KIND_ARRAY else 0
            if elem and types[elem][2] == KIND_STRUCT and types[elem][3:] == (0, 0):
                put(data, pos + 20, 0xffffffff)
                break
        else:
            sys.exit("btf-damage: no array of empty structs")
    elif what == "flip":
        rnd = random.Random(int(arg))
        at = rnd.randrange(tstart, tend)
        data[at] ^= 1 << rnd.randrange(8)
    else:
        fn = find(data, types, strs, arg, KIND_FUNC)
        fpos = types[fn][0]
        proto = types[types[fn][4]][0]
        if what == "func-name":
            put(data, fpos, str_len + 12345)
        elif what == "return-type":
            put(data, proto + 8, past)
        elif what == "param-type":
            put(data, proto + 12 + 4, past)
        else:
            ptr = struct.unpack_from("<I", data, proto + 12 + 4)[0]
            ppos = types[ptr][0]
            if what == "const-loop":
                put(data, ppos + 4, KIND_CONST << 24)
            put(data, ppos + 8, ptr)
    open(dst, "wb").write(data)


main()
