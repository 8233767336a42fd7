#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Writes close-matches.txt, the table of cases that test-close-matches checks
# reg_close_matches() against: each case holds what Python's
# difflib.get_close_matches() returns.  Deterministic (fixed seed, no
# iteration over sets), so running it again gives the same file:
#
#     /usr/bin/python3 tests/data/gen-close-matches.py > tests/data/close-matches.txt

import difflib
import random
import sys
import unicodedata

# Backend names in the style of the ones libreg's users know.
BACKENDS = [
    "inductor", "eager", "aot_eager", "aot_eager_decomp_partition",
    "aot_ts", "aot_inductor", "cudagraphs", "tvm", "onnxrt", "openxla",
    "ipex", "tensorrt", "torchxla_trace_once", "nvprims_nvfuser",
    "ts_nvfuser", "xla", "relu_compile_error_TESTING_ONLY",
    "relu_runtime_error_TESTING_ONLY", "non_leaf_compile_error_TESTING_ONLY",
    "dynamo_accuracy_minifier_backend", "hpu_backend", "onnxrt_cuda",
    "inductor-cpu", "eager.debug", "tvm:meta", "mlx@gpu", "a+b",
]

CUTOFFS = [0.0, 0.3, 0.6, 0.9, 1.0]

ACCENTED = "éèêëàâäçîïôöùûüÿñßøåæœÉÀÇÖÜ"
CJK = "漢字中文日本語한국어カタカナひらがな"
# Outside the BMP: one code point each, although UTF-16 needs two units;
# they also sort after U+E000..U+FFFF by code point but not in UTF-16.
EMOJI = "😀🚀🔥✨👍🎉💡🐍\U0001F9EA\U0001D11E"
COMBINING = "\u0301\u0308\u0327"
OTHER_BMP = "\uE000\uFB01\uFF21\uFFFD"

rng = random.Random(20240531)
cases = []


def add(word, possibilities, n=3, cutoff=0.6):
    expected = difflib.get_close_matches(word, possibilities, n=n, cutoff=cutoff)
    cases.append((n, cutoff, word, list(possibilities), expected))


def typo(s, count=None):
    if count is None:
        count = rng.randint(1, 3)
    chars = list(s)
    for _ in range(count):
        kind = rng.choice(["delete", "insert", "replace", "swap", "double", "case"])
        pos = rng.randrange(len(chars) + 1)
        if kind == "insert" or not chars:
            chars.insert(pos, rng.choice("abcdefghijklmnopqrstuvwxyz_"))
            continue
        pos = min(pos, len(chars) - 1)
        if kind == "delete":
            del chars[pos]
        elif kind == "replace":
            chars[pos] = rng.choice("abcdefghijklmnopqrstuvwxyz_")
        elif kind == "swap" and pos + 1 < len(chars):
            chars[pos], chars[pos + 1] = chars[pos + 1], chars[pos]
        elif kind == "double":
            chars.insert(pos, chars[pos])
        else:
            chars[pos] = chars[pos].swapcase()
    return "".join(chars)


def random_string(alphabet, lo, hi):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def with_duplicates(possibilities):
    result = list(possibilities)
    for _ in range(rng.randint(0, 3)):
        if result:
            result.insert(rng.randrange(len(result) + 1), rng.choice(result))
    return result


def random_cutoff():
    return rng.choice(CUTOFFS + [0.6, 0.6, 0.5, 0.75])


# What the registry asks: every backend name and typos of them, n=3,
# cutoff=0.6, all names as possibilities.
for name in BACKENDS:
    add(name, BACKENDS)
    add(typo(name), BACKENDS)
add("inductr", BACKENDS)
add("eagr", BACKENDS)
add("aot-eager", BACKENDS)
add("cuda_graphs", BACKENDS)
add("TVM", BACKENDS)
add("onnx", BACKENDS)
add("Inductor", BACKENDS)

# Typos of backend names against subsets, every n and cutoff.
for _ in range(120):
    possibilities = with_duplicates(rng.sample(BACKENDS, rng.randint(1, len(BACKENDS))))
    add(typo(rng.choice(BACKENDS)), possibilities, rng.randint(1, 5), random_cutoff())

# Every (n, cutoff) pair on one list, for a plain view of the filters.
for n in range(1, 6):
    for cutoff in CUTOFFS:
        add("aot_egaer", BACKENDS, n, cutoff)

# Short strings over tiny alphabets: many equal scores, so the order of ties
# (by string, descending) decides, and many duplicates.
for _ in range(90):
    alphabet = rng.choice(["ab", "abc", "abcd", "xyz_"])
    possibilities = [random_string(alphabet, 0, 6) for _ in range(rng.randint(0, 15))]
    add(random_string(alphabet, 0, 6), possibilities, rng.randint(1, 5), random_cutoff())

# Ties made on purpose.
add("abc", ["abd", "abe", "xbc", "abf", "zbc", "abz"], 5, 0.6)
add("abc", ["abd", "abe", "xbc", "abf", "zbc", "abz"], 2, 0.6)
add("x", ["x\uFF21", "x😀", "x\uE000", "xé", "xa", "xZ"], 5, 0.0)
add("x", ["x\uFF21", "x😀", "x\uE000"], 1, 0.0)
add("ab", ["ba", "ab", "ba", "ab", "aa", "bb"], 5, 0.0)
add("eager", ["eager", "eager", "eager", "eagre"], 3, 0.6)
add("eager", ["eagre", "eager", "eagre", "eager"], 2, 0.6)

# Empty word, empty possibilities, empty strings among them.
for n in (1, 3, 5):
    for cutoff in CUTOFFS:
        add("", ["", "a", "", "bc"], n, cutoff)
for cutoff in CUTOFFS:
    add("", [], 3, cutoff)
    add("inductor", [], 3, cutoff)
    add("", ["inductor", "eager"], 3, cutoff)
    add("a", [""], 3, cutoff)

# Unicode: accented letters, CJK, emoji outside the BMP, combining marks.
for _ in range(70):
    alphabet = rng.choice([
        ACCENTED + "aeiou",
        CJK,
        EMOJI + "ab",
        ACCENTED + CJK + EMOJI,
        "aeo" + COMBINING,
        EMOJI + OTHER_BMP,
    ])
    word = random_string(alphabet, 0, 8)
    possibilities = [random_string(alphabet, 0, 8) for _ in range(rng.randint(0, 10))]
    possibilities += [typo(word, 1) for _ in range(rng.randint(0, 3))]
    add(word, with_duplicates(possibilities), rng.randint(1, 5), random_cutoff())
add("café", ["cafe", "café", "cafe\u0301", "caff\u00e9", "CAFÉ"], 5, 0.0)
add("日本語", ["日本", "本語", "日本語学", "中文"], 5, 0.3)
add("🚀x", ["🚀", "x🚀", "🚀🚀x", "x"], 5, 0.0)

# Cutoffs equal to a score: a possibility scoring exactly the cutoff is kept.
for _ in range(25):
    word = typo(rng.choice(BACKENDS))
    possibilities = with_duplicates(rng.sample(BACKENDS, 8))
    scores = [difflib.SequenceMatcher(None, x, word).ratio() for x in possibilities]
    add(word, possibilities, rng.randint(1, 5), rng.choice(scores))

# Long words (>= 200 code points) where difflib's autojunk heuristic drops
# popular elements from b2j, and words just under and at the threshold.
autojunk_sensitive = 0


def skewed_string(length):
    # 'a' and 'b' are popular: far more than 1% + 1 of the string.
    return "".join(rng.choice("aaaaabbbc_" + "defghijklmnopqrstuvwxyz0123456789")
                   for _ in range(length))


def mutate(s, count):
    chars = list(s)
    for _ in range(count):
        pos = rng.randrange(len(chars))
        kind = rng.choice(["delete", "insert", "replace"])
        if kind == "delete" and len(chars) > 1:
            del chars[pos]
        elif kind == "insert":
            chars.insert(pos, rng.choice("ab_xyz"))
        else:
            chars[pos] = rng.choice("abxyzé")
    return "".join(chars)


for length in [199, 200, 201] + [rng.randint(200, 450) for _ in range(32)]:
    word = skewed_string(length)
    possibilities = [mutate(word, rng.randint(1, 60)) for _ in range(rng.randint(1, 6))]
    possibilities += [skewed_string(rng.randint(150, 450)) for _ in range(rng.randint(0, 3))]
    possibilities += [word[rng.randrange(length // 2):], word[:rng.randint(1, length)]]
    possibilities = with_duplicates(possibilities)
    for x in possibilities:
        junk = difflib.SequenceMatcher(None, x, word).ratio()
        plain = difflib.SequenceMatcher(None, x, word, autojunk=False).ratio()
        if junk != plain:
            autojunk_sensitive += 1
    add(word, possibilities, rng.randint(1, 5), rng.choice([0.0, 0.3, 0.5, 0.6, 0.8, 0.9]))
# Unicode popular elements.
for _ in range(5):
    word = "".join(rng.choice("ééé漢😀😀xyz" + ACCENTED) for _ in range(rng.randint(200, 300)))
    possibilities = [word[::-1], word[10:], "".join(sorted(word))]
    possibilities = [mutate(word, 30)] + possibilities
    add(word, possibilities, 5, rng.choice([0.0, 0.3, 0.6]))

# Long possibilities against a short word.
for _ in range(20):
    word = typo(rng.choice(BACKENDS))
    possibilities = [random_string("abcdefghijklmnopqrstuvwxyz_", 50, 400) for _ in range(rng.randint(1, 5))]
    possibilities += [word * rng.randint(2, 30), skewed_string(rng.randint(200, 400)) + word]
    add(word, with_duplicates(possibilities), rng.randint(1, 5), rng.choice([0.0, 0.01, 0.05, 0.3]))

# Many names, as a large registry would hold.
SYLLABLES = ["ind", "uc", "tor", "ea", "ger", "aot", "cu", "da", "graph", "onnx",
             "rt", "x", "la", "ip", "ex", "trt", "nv", "fuser", "ts", "_", "-"]
names = ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 5)))
         for _ in range(1500)]
names += BACKENDS
for word in ["inductor", "aot_eagr", "cudagraph", "onnxrtx", "zzz"]:
    add(word, names, rng.randint(1, 5), rng.choice([0.3, 0.6, 0.8]))

if autojunk_sensitive == 0:
    sys.exit("no case depends on autojunk; change the long cases")


def encode(s):
    # Percent-encode the field and list separators and every byte of a
    # control, format, separator or unassigned character, so each case stays
    # one line of visible text.  Other characters are written as they are.
    out = []
    for c in s:
        if c in "%,\t" or ord(c) <= 0x20 or ord(c) == 0x7F or \
           (ord(c) > 0x7F and unicodedata.category(c)[0] in "CZ"):
            out.extend("%%%02X" % byte for byte in c.encode("utf-8"))
        else:
            out.append(c)
    return "".join(out)


def encode_list(strings):
    return "".join(encode(s) + "," for s in strings)


out = sys.stdout
out.write("# Generated by gen-close-matches.py with Python %d.%d: do not edit.\n"
          % sys.version_info[:2])
out.write("# One case a line, five fields separated by tabs:\n")
out.write("#   N  CUTOFF  WORD  POSSIBILITIES  EXPECTED\n")
out.write("# CUTOFF is Python's repr of the float.  Strings are UTF-8 with '%', ',',\n")
out.write("# ASCII controls and space, and non-ASCII Cc/Cf/Cn/Co/Cs/Z* characters\n")
out.write("# percent-encoded; lists are strings each followed by ','.\n")
out.write("# %d cases; %d long possibilities score differently without autojunk.\n"
          % (len(cases), autojunk_sensitive))
for n, cutoff, word, possibilities, expected in cases:
    out.write("%d\t%r\t%s\t%s\t%s\n" % (n, cutoff, encode(word),
                                       encode_list(possibilities),
                                       encode_list(expected)))
