//! The index against brute force: every text scanned with the reference word splitter.

use super::*;
use proptest::prelude::*;

/// Every match of `query` in `texts`, found by splitting each text with the text pipeline's splitter (UAX #29,
/// Han runs cut by the dictionary) and comparing word windows: what the index must return.
fn brute_force(query: &Query, texts: &[&str]) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (document, text) in texts.iter().enumerate() {
        let mut tokens: Vec<(usize, &str)> = Vec::new();
        super::super::cjk::words(text, &mut |start, word| tokens.push((start, word)));
        let lower: Vec<String> = tokens
            .iter()
            .map(|(_, w)| {
                w.chars()
                    .flat_map(char::to_lowercase)
                    .collect::<String>()
                    .replace('\u{2019}', "'")
            })
            .collect();
        let mut found = Vec::new();
        let mut every_phrase = true;
        for phrase in query.phrases() {
            let mut any = false;
            for first in 0..tokens.len() {
                if first + phrase.len() <= tokens.len()
                    && phrase
                        .iter()
                        .enumerate()
                        .all(|(i, word)| lower[first + i] == *word)
                {
                    let (last_start, last_word) = tokens[first + phrase.len() - 1];
                    found.push(tokens[first].0..last_start + last_word.len());
                    any = true;
                }
            }
            every_phrase &= any;
        }
        if every_phrase {
            found.sort_by_key(|r| (r.start, r.end));
            found.dedup();
            hits.extend(found.into_iter().map(|range| Hit { document, range }));
        }
    }
    hits
}

const TEXTS: [&str; 5] = [
    "New York is big. The new  york times.",
    "I moved to new\nYork; then to Boston. The end.",
    "Über straße, ÜBER alles — don’t stop",
    "newyork new-york new_york NEW YORK",
    "",
];

fn check(query: &str) {
    let index = TextIndex::build(&TEXTS);
    let query = Query::parse(query).expect("a query with words");
    let hits = index.search(&query, &TEXTS);
    assert_eq!(hits, brute_force(&query, &TEXTS), "{query}");
    for (document, text) in TEXTS.iter().enumerate() {
        let in_document: Vec<Range<usize>> = hits
            .iter()
            .filter(|h| h.document == document)
            .map(|h| h.range.clone())
            .collect();
        assert_eq!(query.find_in(text), in_document, "{query} in {text:?}");
    }
}

#[test]
fn words_and_phrases_match_as_brute_force_finds_them() {
    for query in [
        "new",
        "york",
        "new york",
        "NEW York",
        "the",
        "the end",
        "über",
        "don't",
        "don’t stop",
        "new_york",
        "missing",
        "new missing",
        "\"new york\" times",
        "\"new york\" boston",
        "york new",
    ] {
        check(query);
    }
}

#[test]
fn a_phrase_holds_its_words_adjacent_across_lines_and_punctuation() {
    let index = TextIndex::build(&TEXTS);
    let hits = index.search(&Query::parse("new york").unwrap(), &TEXTS);
    let found: Vec<(usize, &str)> = hits
        .iter()
        .map(|h| (h.document, &TEXTS[h.document][h.range.clone()]))
        .collect();
    assert_eq!(
        found,
        [
            (0, "New York"),
            (0, "new  york"),
            (1, "new\nYork"),
            (3, "new-york"),
            (3, "NEW YORK")
        ]
    );
}

#[test]
fn quotes_make_phrases_that_must_all_occur() {
    let query = Query::parse("\"new york\" boston").unwrap();
    assert_eq!(
        query.phrases(),
        [
            vec!["new".to_string(), "york".into()],
            vec!["boston".into()]
        ]
    );
    assert_eq!(query.to_string(), "\"new york\" boston");
    let index = TextIndex::build(&TEXTS);
    let documents: Vec<usize> = index
        .search(&query, &TEXTS)
        .iter()
        .map(|h| h.document)
        .collect();
    assert_eq!(documents, [1, 1]);
}

#[test]
fn a_query_without_words_is_refused() {
    assert_eq!(
        Query::parse(" -- \"\" "),
        Err(SearchError::NoWords {
            query: " -- \"\" ".into()
        })
    );
}

#[test]
fn a_long_word_is_found_whole() {
    let long = "x".repeat(300);
    let text = format!("a {long} b");
    let texts = [text.as_str()];
    let index = TextIndex::build(&texts);
    let hits = index.search(&Query::parse(&format!("a {long} b")).unwrap(), &texts);
    assert_eq!(
        hits,
        [Hit {
            document: 0,
            range: 0..text.len()
        }]
    );
}

#[test]
fn the_build_does_not_depend_on_the_chunking() {
    // More documents than a chunk, so that the merge runs over several.
    let texts: Vec<String> = (0..CHUNK * 3 + 7)
        .map(|i| format!("doc {i} word{} the end", i % 13))
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let index = TextIndex::build(&texts);
    for query in ["the end", "word3", "doc 300", "end"] {
        let query = Query::parse(query).unwrap();
        assert_eq!(index.search(&query, &texts), brute_force(&query, &texts));
    }
    assert_eq!(index.token_count(), texts.len() * 5);
}

/// Texts over more than two chunks whose words are short ASCII ones, long ASCII ones (more than 16 bytes) and
/// non-ASCII ones, each kind both new and already seen in every chunk.
fn mixed_texts() -> Vec<String> {
    (0..CHUNK * 2 + 5)
        .map(|i| {
            format!(
                "Doc {i} Größe{} extraordinarilylongword{} the END café{}",
                i % 7,
                i % 11,
                i % 3
            )
        })
        .collect()
}

#[test]
fn words_of_every_kind_are_found_across_chunks() {
    let texts = mixed_texts();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let index = TextIndex::build(&texts);
    for query in [
        "größe3",
        "extraordinarilylongword10 the",
        "end café2",
        "doc 4100",
        "\"the end\" größe0",
    ] {
        let query = Query::parse(query).unwrap();
        let found = index.search(&query, &texts);
        assert!(!found.is_empty(), "{query} is in the texts");
        assert_eq!(found, brute_force(&query, &texts), "{query}");
    }
    assert_eq!(index.token_count(), texts.len() * 7);
}

#[test]
fn the_index_is_the_same_on_one_thread_or_three() {
    let texts = mixed_texts();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool")
            .install(|| TextIndex::build(&texts))
    };
    let (one, three) = (on(1), on(3));
    assert_eq!(one.words, three.words);
    assert_eq!(one.offsets, three.offsets);
    assert_eq!(one.documents, three.documents);
    assert_eq!(one.starts, three.starts);
    assert_eq!(one.lengths, three.lengths);
    // Words are numbered in the order the collection first uses them.
    assert_eq!(one.words["doc"], 0);
    assert_eq!(one.words["größe0"], 2);
    assert_eq!(one.words["extraordinarilylongword0"], 3);
}

#[test]
fn a_snippet_centres_the_match_on_one_line() {
    let text = "first line\n\n  the   quick brown fox\tjumps over the lazy dog";
    let start = text.find("fox").unwrap();
    let s = snippet(text, start..start + 3, 20);
    assert_eq!(s.text, "… brown fox jumps o…");
    assert_eq!(&s.text[s.highlight.clone()], "fox");
    assert_eq!(s.text.chars().count(), 20);
    // Wide enough for all of it: nothing cut, whitespace collapsed, the ends trimmed.
    let s = snippet(text, start..start + 3, 200);
    assert_eq!(
        s.text,
        "first line the quick brown fox jumps over the lazy dog"
    );
    assert_eq!(&s.text[s.highlight], "fox");
    // At the start of the text the room goes to what follows.
    let s = snippet(text, 0..5, 16);
    assert_eq!(s.text, "first line the …");
    assert_eq!(s.highlight, 0..5);
    // A match wider than the line is cut.
    let s = snippet(text, 0..text.len(), 8);
    assert_eq!(s.text, "first l…");
    assert_eq!(s.highlight, 0..s.text.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn search_matches_brute_force(
        texts in proptest::collection::vec("[abAB é.,'\n-]{0,40}", 1..8),
        query in "[abé ]{1,6}",
    ) {
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        if let Ok(query) = Query::parse(&query) {
            let index = TextIndex::build(&texts);
            prop_assert_eq!(index.search(&query, &texts), brute_force(&query, &texts));
        }
    }

    #[test]
    fn snippets_hold_their_match_within_the_width(
        text in "[ab \n\té]{1,60}",
        cut in 0usize..60,
        length in 0usize..10,
        width in 1usize..30,
    ) {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let start = chars[cut.min(chars.len() - 1)].0;
        let end = chars.get(cut.min(chars.len() - 1) + length).map_or(text.len(), |&(i, _)| i);
        let s = snippet(&text, start..end, width);
        prop_assert!(s.text.chars().count() <= width);
        prop_assert!(!s.text.contains('\n'));
        prop_assert!(s.text.is_char_boundary(s.highlight.start) && s.text.is_char_boundary(s.highlight.end));
    }
}

#[test]
fn chinese_is_searched_in_the_words_the_pipeline_cuts() {
    let text = "美国航天飞机发现号在太空中飞行了十二天，今天返回地球。NASA 说 café";
    let texts = [text];
    let index = TextIndex::build(&texts);
    // The text pipeline's words, with their byte offsets.
    let mut pipeline: Vec<(usize, &str)> = Vec::new();
    super::super::cjk::words(text, &mut |start, word| pipeline.push((start, word)));
    assert!(pipeline.contains(&(text.find("航天飞机").unwrap(), "航天飞机")));
    for &(start, word) in &pipeline {
        let query = Query::phrase(word).expect("a word");
        assert_eq!(query.phrases(), [vec![lowered(word)]], "{word} is one word");
        let hits = index.search(&query, &texts);
        assert!(
            hits.contains(&Hit {
                document: 0,
                range: start..start + word.len()
            }),
            "{word} at {start}: {hits:?}"
        );
    }
    // A character inside a dictionary word is not a word of the text.
    let inside = Query::phrase("航").expect("a word");
    assert!(index.search(&inside, &texts).is_empty());
    assert_eq!(index.token_count(), pipeline.len());
}

#[test]
fn a_long_kana_word_is_found_whole() {
    // A run of hiragana is one word of the pipeline; this one is longer than a posting's length byte holds.
    let run = "あ".repeat(100);
    let text = format!("東京で {run}。 end");
    let texts = [text.as_str()];
    let index = TextIndex::build(&texts);
    let start = text.find(&run).unwrap();
    let query = Query::phrase(&run).expect("a word");
    assert_eq!(
        index.search(&query, &texts),
        [Hit {
            document: 0,
            range: start..start + run.len()
        }]
    );
}
