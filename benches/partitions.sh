#!/usr/bin/env bash
# Prints one line per (corpus, rule, kernel): a digest of what `pdx cluster` writes (the JSON report without its
# timings and settings, which say how it was run rather than what it found; the CSV and the Newick tree). Run it with two builds of pdx and diff the outputs to check that a change
# left every partition and figure bit for bit as it was:
#
#   benches/partitions.sh target/release/pdx > after.txt
#   diff before.txt after.txt
#
# Corpora come from PDX_DATA (iris, CLASSIC3, BBC News, 20 Newsgroups); PDX_PARTITIONS_CORPORA picks a subset
# (e.g. "iris bbc"). PDX_PARTITIONS_TREES=1 digests only the CSV (each document's leaf and path: the tree), for
# changes that may move the bits of singular values and coordinates but must put every document in the same
# leaf of the same tree; PDX_PARTITIONS_KERNEL=0 leaves out the kernel rules. Needs jq and sha256sum. The whole run takes a few minutes: the kernel rules build an
# n x n kernel matrix at the root (2.8 GB for 20 Newsgroups).
set -euo pipefail

pdx=${1:?usage: partitions.sh PATH-TO-PDX}
data=${PDX_DATA:?set PDX_DATA to the unpacked corpora}
corpora=${PDX_PARTITIONS_CORPORA:-iris classic3 bbc 20news}
trees_only=${PDX_PARTITIONS_TREES:-0}
with_kernel=${PDX_PARTITIONS_KERNEL:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

linear="pddp pddp-2means pddp-oc pddp-oc-2means pddp-ocpc pdgp bisecting-kmeans kmeans"
kernel="kpddp kpddp-2means kpddp-ocpc kernel-kmeans soft-kernel-kmeans alignment cut-cost spectral"

paths_of() {
  case $1 in
    iris) echo "$data/uci/iris/iris.data" ;;
    classic3) echo "$data/classic/MED.ALL $data/classic/CISI.ALL $data/classic/cran.all.1400" ;;
    bbc) echo "$data/bbc" ;;
    20news) echo "$data/20news-bydate-train $data/20news-bydate-test" ;;
  esac
}

# Leaves per corpus: the linear rules grow a tree of this many; the kernel rules, whose every split builds a
# dense kernel matrix, fewer on the larger corpora.
leaves_of() {
  case $1 in
    iris) echo "3 3" ;;
    classic3) echo "6 3" ;;
    bbc) echo "8 4" ;;
    20news) echo "20 2" ;;
  esac
}

# One digest line for one run; extra arguments go to pdx cluster.
run() {
  local corpus=$1 rule=$2 k=$3
  shift 3
  # shellcheck disable=SC2046
  if "$pdx" cluster $(paths_of "$corpus") --no-cache --rule "$rule" --k "$k" "$@" \
    --json "$work/out.json" --csv "$work/out.csv" --newick "$work/out.nwk" >"$work/table" 2>"$work/notes"; then
    local digest
    if [[ $trees_only == 1 ]]; then
      digest=$(sha256sum <"$work/out.csv" | cut -c1-16)
    else
      digest=$( {
        jq -S -c 'del(.timings_ms, .settings)' "$work/out.json"
        cat "$work/out.csv" "$work/out.nwk"
        # The first line of the table and some notes end with a time; the report names the files it wrote, in
        # this run's temporary folder.
        sed -E -e 's/ in [0-9]+ ms$//' -e "s#$work#WORK#g" "$work/table" "$work/notes"
      } | sha256sum | cut -c1-16)
    fi
    echo "$corpus $rule k=$k $* $digest"
  else
    echo "$corpus $rule k=$k $* failed: $(head -c 200 "$work/notes")"
  fi
}

for corpus in $corpora; do
  read -r k_linear k_kernel <<<"$(leaves_of "$corpus")"
  for rule in $linear; do
    run "$corpus" "$rule" "$k_linear"
  done
  run "$corpus" pddp "$k_linear" --l 2
  run "$corpus" pddp-ocpc "$k_linear" --l 2
  run "$corpus" pddp "$k_linear" --select size
  run "$corpus" pdgp "$k_linear" --select variance --tau 0.1
  if [[ $with_kernel == 1 ]]; then
    for rule in $kernel; do
      run "$corpus" "$rule" "$k_kernel"
    done
  fi
done

# Each kind of kernel once, on a corpus small enough for all of them.
if [[ $with_kernel == 1 && " $corpora " == *" bbc "* ]]; then
  for kernel_spec in cosine linear poly:2 gaussian:1.2 geodesic:6:cosine string:spectrum:3 string:boundrange:3; do
    run bbc kpddp 3 --kernel "$kernel_spec"
  done
  run bbc kernel-kmeans 3 --kernel cosine --k-way 3
  run bbc soft-kernel-kmeans 3 --kernel cosine --beta 2
  run bbc spectral 3 --kernel cosine --laplacian sym --k-way 3
  run bbc spectral 3 --kernel cosine --laplacian unnormalized
fi
