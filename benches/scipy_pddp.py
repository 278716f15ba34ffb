#!/usr/bin/env python3
"""Reference for the clustering benchmark, on the matrix pdx exported (Matrix Market, terms x documents, plus one
label per line): PDDP to K leaves with scipy's ARPACK (svds) on an implicitly centred LinearOperator, selecting the
leaf of largest scatter, and scikit-learn's BisectingKMeans(K). Prints one JSON object.
Usage: scipy_pddp.py MATRIX.mtx LABELS.txt K. Exits 3 when scipy or scikit-learn is missing."""
import json
import sys
import time

try:
    import numpy as np
    import scipy.io
    import scipy.sparse.linalg as spla
    from sklearn.cluster import BisectingKMeans
    from sklearn.metrics import normalized_mutual_info_score
except ImportError as error:
    print(f"scipy / scikit-learn not installed ({error}); skipping the comparison", file=sys.stderr)
    sys.exit(3)


def pddp(columns_by_row, k):
    """PDDP on the rows of a CSR matrix (documents as rows)."""
    n = columns_by_row.shape[0]
    norms = np.asarray(columns_by_row.multiply(columns_by_row).sum(axis=1)).ravel()

    def scatter(members):
        sub = columns_by_row[members]
        centroid = np.asarray(sub.mean(axis=0)).ravel()
        return norms[members].sum() - len(members) * centroid.dot(centroid)

    leaves = [np.arange(n)]
    scatters = [scatter(leaves[0])]
    while len(leaves) < k:
        index = int(np.argmax(scatters))
        members = leaves[index]
        sub = columns_by_row[members]
        centroid = np.asarray(sub.mean(axis=0)).ravel()
        # B = A_p - e c^T (documents as rows): never formed.
        def matvec(x, sub=sub, c=centroid):
            x = np.ravel(x)
            return sub @ x - c.dot(x)

        def rmatvec(y, sub=sub, c=centroid):
            y = np.ravel(y)
            return sub.T @ y - c * y.sum()

        operator = spla.LinearOperator(sub.shape, matvec=matvec, rmatvec=rmatvec, dtype=float)
        u, s, vt = spla.svds(operator, k=1)
        coordinates = u[:, 0]
        left, right = members[coordinates <= 0], members[coordinates > 0]
        if len(left) == 0 or len(right) == 0:
            scatters[index] = -1.0
            continue
        leaves[index] = left
        scatters[index] = scatter(left)
        leaves.append(right)
        scatters.append(scatter(right))
    labels = np.empty(n, dtype=int)
    for leaf, members in enumerate(leaves):
        labels[members] = leaf
    return labels


def main():
    matrix_path, labels_path, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tdm = scipy.io.mmread(matrix_path).tocsr()
    documents = tdm.T.tocsr()
    with open(labels_path) as handle:
        truth = [line.rstrip("\n") for line in handle]
    start = time.perf_counter()
    pddp_labels = pddp(documents, k)
    pddp_seconds = time.perf_counter() - start
    start = time.perf_counter()
    bisecting = BisectingKMeans(n_clusters=k, random_state=0).fit(documents)
    bisecting_seconds = time.perf_counter() - start
    print(json.dumps({
        "pddp_s": pddp_seconds,
        "pddp_nmi": normalized_mutual_info_score(truth, pddp_labels),
        "bisecting_s": bisecting_seconds,
        "bisecting_nmi": normalized_mutual_info_score(truth, bisecting.labels_),
    }))


if __name__ == "__main__":
    main()
