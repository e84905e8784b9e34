"""The code layout for scripts/release.sh, from callgrind training profiles and the training link's map.

    order.py MAP ORDER-OUT SCRIPT-OUT PROFILE...

The profiles come from `valgrind --tool=callgrind --dump-instr=yes --compress-pos=no`, so every executed
instruction address of the executable is listed; MAP is lld's `-Map` of that same executable. Each address is
looked up in the map's input sections:
- a `.text.<symbol>` section (function sections) or a whole `.text` of an object without them: its first
  symbol goes to ORDER-OUT, for `--symbol-ordering-file` (which moves the whole section), most executed first;
- a `.text..L…` section holds a private function, which has no symbol: it goes to SCRIPT-OUT, a linker
  script that gathers them in an output section inserted before `.text`.
"""

import bisect
import collections
import re
import sys

map_path, order_path, script_path, profiles = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

# lld map lines: VMA LMA Size Align, then an output section, an input section (8 more spaces) or a symbol (16).
line_pattern = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(\S.*)$")
sections = []  # (start, size, file, section name, [symbols])
output = None
for line in open(map_path, errors="replace"):
    match = line_pattern.match(line)
    if not match:
        continue
    start, size, indent, text = int(match.group(1), 16), int(match.group(2), 16), len(match.group(3)), match.group(4)
    if indent == 0:
        output = text
    elif output == ".text" and indent <= 8:
        found = re.match(r"^(.*)\((\.text[^()]*)\)$", text)  # "/path/File.o:(.text.name)"
        file, name = (found.group(1).rstrip(":"), found.group(2)) if found else ("", "")
        sections.append((start, size, file, name, []))
    elif output == ".text" and sections and sections[-1][3]:
        sections[-1][4].append(text)
sections.sort()
starts = [section[0] for section in sections]

cost = collections.Counter()
for path in profiles:
    in_executable = False
    for line in open(path, errors="replace"):
        if line.startswith("ob="):
            in_executable = line.rstrip().endswith("/haapi")
        elif in_executable and line.startswith("0x"):
            parts = line.split()
            address = int(parts[0], 16)
            index = bisect.bisect_right(starts, address) - 1
            if index >= 0 and address < sections[index][0] + sections[index][1]:
                cost[index] += int(parts[-1]) if parts[-1].isdigit() else 1

symbols, private = [], []
for index, _ in sorted(cost.items(), key=lambda item: (-item[1], item[0])):
    _, _, file, name, names = sections[index]
    if name.startswith(".text..L"):
        if re.fullmatch(r"[\w./+-]+", file) and re.fullmatch(r"[\w.$]+", name):
            private.append(f"    {file}({name})")
    else:
        symbols.extend(names[:1])  # one symbol moves its whole section
with open(order_path, "w") as order:
    order.write("".join(f"{name}\n" for name in symbols))
with open(script_path, "w") as script:
    script.write("SECTIONS\n{\n  .text.hot.private :\n  {\n")
    script.write("".join(f"{entry}\n" for entry in private))
    script.write("  }\n}\nINSERT BEFORE .text;\n")
