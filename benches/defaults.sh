#!/usr/bin/env bash
# Measures the rules that could be pdx's default: quality (NMI, purity) and time of whole `pdx cluster` runs on
# the embedded demo and four labelled collections, at each collection's number of labels and at a few other k.
# Prints one tab-separated line per run:
#
#   corpus  k  rule  round  leaves  nmi  purity  cluster_ms  wall_ms
#
# Usage: benches/defaults.sh PATH-TO-PDX [ROUNDS]. Corpora come from PDX_DATA; PDX_DEFAULTS_CORPORA picks a
# subset (e.g. "demo bbc"). Round 1 runs every k; rounds 2.. run only the collection's own k, to give timings a
# range. Within a round the rules alternate, so that load from other processes on the machine falls on all of
# them alike. Every run opens the collection from the cache, which a first run per collection fills (not timed).
# Needs jq.
set -euo pipefail

pdx=${1:?usage: defaults.sh PATH-TO-PDX [ROUNDS]}
rounds=${2:-3}
data=${PDX_DATA:?set PDX_DATA to the unpacked corpora}
corpora=${PDX_DEFAULTS_CORPORA:-demo classic3 bbc 20news reuters}
rules=${PDX_DEFAULTS_RULES:-pddp pddp-2means pddp-oc pddp-oc-2means pddp-ocpc pdgp bisecting-kmeans kmeans}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The arguments that open a collection: its paths and reading options.
args_of() {
  case $1 in
    demo) echo "" ;;
    classic3) echo "$data/classic/MED.ALL $data/classic/CISI.ALL $data/classic/cran.all.1400" ;;
    bbc) echo "$data/bbc" ;;
    20news) echo "$data/20news-bydate-train $data/20news-bydate-test --strip-headers" ;;
    reuters) echo "$data/reuters21578 --split modapte --single-label" ;;
  esac
}

# The collection's number of labels first, then the other k measured.
ks_of() {
  case $1 in
    demo) echo "6 3 12" ;;
    classic3) echo "3 6 10" ;;
    bbc) echo "5 3 10" ;;
    20news) echo "20 10 40" ;;
    reuters) echo "66 10 20" ;;
  esac
}

run() {
  local corpus=$1 k=$2 rule=$3 round=$4 start end
  start=$(date +%s%N)
  # shellcheck disable=SC2046
  if "$pdx" cluster $(args_of "$corpus") --rule "$rule" --k "$k" --json "$work/out.json" >/dev/null 2>"$work/err"; then
    end=$(date +%s%N)
    jq -r --arg c "$corpus" --arg k "$k" --arg r "$rule" --arg n "$round" --arg w "$(((end - start) / 1000000))" \
      '[$c, $k, $r, $n, .metrics.leaves, (.metrics.nmi * 10000 | round / 10000),
        (.metrics.purity * 10000 | round / 10000), (.timings_ms.cluster | round), $w] | @tsv' "$work/out.json"
  else
    printf '%s\t%s\t%s\t%s\tfailed: %s\n' "$corpus" "$k" "$rule" "$round" "$(head -c 200 "$work/err")"
  fi
}

for corpus in $corpora; do
  # shellcheck disable=SC2046
  "$pdx" stats $(args_of "$corpus") >/dev/null 2>&1 || true
done
for round in $(seq 1 "$rounds"); do
  for corpus in $corpora; do
    read -r -a ks <<<"$(ks_of "$corpus")"
    [[ $round == 1 ]] || ks=("${ks[0]}")
    for k in "${ks[@]}"; do
      for rule in $rules; do
        run "$corpus" "$k" "$rule" "$round"
      done
    done
  done
done
