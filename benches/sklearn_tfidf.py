#!/usr/bin/env python3
"""Reference timing for the load benchmark: read the same files and build a TF-IDF matrix with scikit-learn's
TfidfVectorizer (no stemming), the way a Python user would. Prints one JSON object per line:
{"runs_s": [...], "median_s": ..., "docs": ..., "terms": ..., "nnz": ...}. Exits 3 when scikit-learn is missing.
Usage: sklearn_tfidf.py RUNS PATH..."""
import json
import os
import sys
import time

try:
    from sklearn.feature_extraction.text import TfidfVectorizer
except ImportError:
    print("scikit-learn is not installed (pip install scikit-learn); skipping the comparison", file=sys.stderr)
    sys.exit(3)


def files_below(paths):
    found = []
    for root in paths:
        for folder, dirs, names in os.walk(root):
            dirs.sort()
            for name in sorted(names):
                if not name.startswith("."):
                    found.append(os.path.join(folder, name))
    return found


def run_once(paths):
    start = time.perf_counter()
    texts = []
    for path in files_below(paths):
        with open(path, "rb") as handle:
            texts.append(handle.read().decode("latin-1"))
    matrix = TfidfVectorizer().fit_transform(texts)
    return time.perf_counter() - start, matrix


def main():
    runs = int(sys.argv[1])
    paths = sys.argv[2:]
    times = []
    matrix = None
    for _ in range(runs):
        elapsed, matrix = run_once(paths)
        times.append(elapsed)
    times_sorted = sorted(times)
    print(json.dumps({
        "runs_s": times,
        "median_s": times_sorted[len(times_sorted) // 2],
        "docs": matrix.shape[0],
        "terms": matrix.shape[1],
        "nnz": int(matrix.nnz),
    }))


if __name__ == "__main__":
    main()
