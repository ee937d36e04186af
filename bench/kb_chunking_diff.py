#!/usr/bin/env python
"""Does a change to chunking or query terms change what bench/retrieval.py indexes or asks?

    python bench/kb_chunking_diff.py OLD_CHECKOUT

Compares `chunk()` of OLD_CHECKOUT (e.g. a `git archive` of main) with this checkout's
over the retrieval bench's documents (WiCE pages and distractors), `query_terms()` over
its claims, and how many claims' gold sentence lies whole in one passage (the bench's
definition of a hit). Needs no database and no encoder: minutes where the bench takes hours
on a loaded 2-core machine."""

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
OLD = sys.argv[1] if len(sys.argv) > 1 else "/tmp/kbsearch_base"

from bench.retrieval import distractors, wice  # noqa: E402 - sets Django up first
from knowledge.chunking import chunk as new_chunk  # noqa: E402
from knowledge.text_search import query_terms as new_terms  # noqa: E402


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


old_chunk = load("old_chunking", os.path.join(OLD, "knowledge/chunking.py")).chunk
old_terms = load("old_text_search", os.path.join(OLD, "knowledge/text_search.py")).query_terms

claims = wice()
docs = [("\n\n".join(c["evidence"])) for c in claims] + [t for _, t in distractors()]
same = diff = passages = 0
for text in docs:
    a, b = old_chunk(text), new_chunk(text)
    passages += len(b)
    if [(c.start, c.end) for c in a] == [(c.start, c.end) for c in b]:
        same += 1
    else:
        diff += 1
print(
    f"documents {len(docs)}: chunks identical {same}, different {diff}; passages (new) {passages}"
)
t_same = sum(old_terms(c["claim"]) == new_terms(c["claim"]) for c in claims)
print(f"claims {len(claims)}: query terms identical {t_same}")
nw = len(claims)
for i, text in enumerate(docs):
    a, b = old_chunk(text), new_chunk(text)
    if [(c.start, c.end) for c in a] != [(c.start, c.end) for c in b]:
        print("WICE" if i < nw else "distractor", i, len(a), "->", len(b), repr(text[:80]))


def coverable(c, chunks):
    offsets, pos = [], 0
    for sentence in c["evidence"]:
        offsets.append((pos, pos + len(sentence)))
        pos += len(sentence) + 2
    spans = [offsets[i] for i in c["gold"] if i < len(offsets)]
    return any(ch.start <= a and b <= ch.end for ch in chunks for a, b in spans)


old_ok = sum(coverable(c, old_chunk(docs[i])) for i, c in enumerate(claims))
new_ok = sum(coverable(c, new_chunk(docs[i])) for i, c in enumerate(claims))
print(
    f"claims whose gold sentence lies whole in one passage: old {old_ok}, new {new_ok} of {len(claims)}"
)
