#!/usr/bin/env python3
"""tests/docs/check_docs.py: checks on the documentation that a reader relies on.

1. The user docs (README.md, docs/commands.md, docs/scene-format.md, docs/viewer.md) name no
   commit hashes: they describe what the program does, not when it changed.
2. README.md stays within 20480 bytes and docs/performance.md within 60 KiB (the current
   results; earlier runs go to docs/performance-history.md).
3. Every link to a section of a Markdown file (`](#x)`, `](file.md#x)` in the docs, and
   `docs/<file>.md#<heading>` in the sources) names a file and a heading that exist.

usage: check_docs.py [REPOSITORY_ROOT]   (default: two folders above this file)
Prints one line per problem, with file and line, and exits 1 if there is any.
"""
import os
import re
import sys

USER_DOCS = ["README.md", "docs/commands.md", "docs/scene-format.md", "docs/viewer.md"]
SIZE_LIMITS = {"README.md": 20480, "docs/performance.md": 60 * 1024}
SOURCE_DIRS = ["src", "kernels", "tests"]
SOURCE_EXTS = (".c", ".h", ".cu", ".cuh", ".py", ".sh", ".txt", ".cmake")

# 7 to 40 hex digits standing alone, with at least one digit and one letter a-f: a short or
# full commit hash (plain numbers and words such as "decade" are not).
HASH = re.compile(r"(?<![\w/.#-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w/-])")
MD_LINK = re.compile(r"\]\(([^)\s#]*)#([^)\s]+)\)")
SRC_LINK = re.compile(r"(docs/[\w.-]+\.md)#([\w-]+)")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.lstrip("#").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        found, seen, in_fence = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    in_fence = not in_fence
                if in_fence or not re.match(r"#{1,6} ", line):
                    continue
                a = slug(line)
                n = seen.get(a, 0)
                seen[a] = n + 1
                found.add(a if n == 0 else f"{a}-{n}")
        cache[path] = found
    return cache[path]


def markdown_files(root):
    out = ["README.md"]
    for folder, _, names in os.walk(root):
        rel = os.path.relpath(folder, root)
        if rel.split(os.sep)[0].startswith(("build", ".")):
            continue
        out += [os.path.normpath(os.path.join(rel, n)) for n in names if n.endswith(".md") and rel != "."]
    return sorted(set(out))


def check(root):
    problems = []

    for doc in USER_DOCS:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                for m in HASH.finditer(line):
                    problems.append(f"{doc}:{no}: '{m.group(0)}' looks like a commit hash; user docs "
                                    "describe the program as it is (history: docs/experiments.md)")

    for doc, limit in SIZE_LIMITS.items():
        size = os.path.getsize(os.path.join(root, doc))
        if size > limit:
            problems.append(f"{doc}: {size} bytes, more than its limit of {limit}")

    def check_link(where, base_dir, target, anchor):
        path = os.path.normpath(os.path.join(base_dir, target)) if target else where[0]
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            problems.append(f"{where[0]}:{where[1]}: link to '{target}#{anchor}': no such file")
        elif path.endswith(".md") and anchor not in anchors_of(full):
            problems.append(f"{where[0]}:{where[1]}: link to '{target}#{anchor}': {path} has no such heading")

    for doc in markdown_files(root):
        in_fence = False
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                if FENCE.match(line):
                    in_fence = not in_fence
                if in_fence:
                    continue
                for m in MD_LINK.finditer(line):
                    target = m.group(1)
                    if "://" in target:
                        continue
                    check_link((doc, no), os.path.dirname(doc), target, m.group(2))

    for top in SOURCE_DIRS:
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if not name.endswith(SOURCE_EXTS):
                    continue
                full = os.path.join(folder, name)
                rel = os.path.relpath(full, root)
                with open(full, encoding="utf-8", errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        for m in SRC_LINK.finditer(line):
                            check_link((rel, no), "", m.group(1), m.group(2))
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems = check(root)
    for p in problems:
        print(p)
    print(f"check_docs: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
