//! The languages pdx knows: the Snowball stemmers of rust-stemmers and a stop list for each. English keeps the
//! list shipped in `assets/stoplist-en.txt`; every other language takes the Snowball project's own list for its
//! stemmer (the lists NLTK distributes, through the `stop-words` crate), written to be applied before that
//! stemmer, as pdx applies them.

use std::borrow::Cow;
use std::collections::HashSet;

use rust_stemmers::{Algorithm, Stemmer};

/// The English stop list shipped with pdx (`assets/stoplist-en.txt`).
pub const DEFAULT_STOPLIST: &str = include_str!("../../assets/stoplist-en.txt");

/// Where a language's stop list comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopList {
    /// The list shipped with pdx, [`DEFAULT_STOPLIST`].
    Shipped,
    /// The Snowball list the `stop-words` crate keeps under this ISO 639-1 code.
    Snowball(&'static str),
}

/// A language pdx knows: its name (as options take it), its stemmer and its stop list, if it has them.
struct Language {
    name: &'static str,
    stemmer: Option<Algorithm>,
    stop_list: Option<StopList>,
}

/// Every language pdx knows, one row each, in alphabetical order: the lists below are taken from these rows, in
/// this order, so that a language is declared in one place.
const LANGUAGES: [Language; 19] = [
    Language {
        name: "arabic",
        stemmer: Some(Algorithm::Arabic),
        stop_list: Some(StopList::Snowball("ar")),
    },
    Language {
        name: "chinese",
        stemmer: None,
        stop_list: Some(StopList::Snowball("zh")),
    },
    Language {
        name: "danish",
        stemmer: Some(Algorithm::Danish),
        stop_list: Some(StopList::Snowball("da")),
    },
    Language {
        name: "dutch",
        stemmer: Some(Algorithm::Dutch),
        stop_list: Some(StopList::Snowball("nl")),
    },
    Language {
        name: "english",
        stemmer: Some(Algorithm::English),
        stop_list: Some(StopList::Shipped),
    },
    Language {
        name: "finnish",
        stemmer: Some(Algorithm::Finnish),
        stop_list: Some(StopList::Snowball("fi")),
    },
    Language {
        name: "french",
        stemmer: Some(Algorithm::French),
        stop_list: Some(StopList::Snowball("fr")),
    },
    Language {
        name: "german",
        stemmer: Some(Algorithm::German),
        stop_list: Some(StopList::Snowball("de")),
    },
    Language {
        name: "greek",
        stemmer: Some(Algorithm::Greek),
        stop_list: Some(StopList::Snowball("el")),
    },
    Language {
        name: "hungarian",
        stemmer: Some(Algorithm::Hungarian),
        stop_list: Some(StopList::Snowball("hu")),
    },
    Language {
        name: "italian",
        stemmer: Some(Algorithm::Italian),
        stop_list: Some(StopList::Snowball("it")),
    },
    Language {
        name: "norwegian",
        stemmer: Some(Algorithm::Norwegian),
        stop_list: Some(StopList::Snowball("no")),
    },
    Language {
        name: "portuguese",
        stemmer: Some(Algorithm::Portuguese),
        stop_list: Some(StopList::Snowball("pt")),
    },
    Language {
        name: "romanian",
        stemmer: Some(Algorithm::Romanian),
        stop_list: Some(StopList::Snowball("ro")),
    },
    Language {
        name: "russian",
        stemmer: Some(Algorithm::Russian),
        stop_list: Some(StopList::Snowball("ru")),
    },
    Language {
        name: "spanish",
        stemmer: Some(Algorithm::Spanish),
        stop_list: Some(StopList::Snowball("es")),
    },
    Language {
        name: "swedish",
        stemmer: Some(Algorithm::Swedish),
        stop_list: Some(StopList::Snowball("sv")),
    },
    Language {
        name: "tamil",
        stemmer: Some(Algorithm::Tamil),
        stop_list: Some(StopList::Snowball("ta")),
    },
    Language {
        name: "turkish",
        stemmer: Some(Algorithm::Turkish),
        stop_list: Some(StopList::Snowball("tr")),
    },
];

/// What a list of language names holds: the languages with a stemmer, or those with a stop list.
#[derive(Clone, Copy)]
enum Has {
    Stemmer,
    StopList,
}

const fn has(language: &Language, what: Has) -> bool {
    match what {
        Has::Stemmer => language.stemmer.is_some(),
        Has::StopList => language.stop_list.is_some(),
    }
}

/// How many of [`LANGUAGES`] have `what`: the length of [`names`]'s list.
const fn count(what: Has) -> usize {
    let mut count = 0;
    let mut at = 0;
    while at < LANGUAGES.len() {
        if has(&LANGUAGES[at], what) {
            count += 1;
        }
        at += 1;
    }
    count
}

/// The names of the languages that have `what`, in the rows' order. `N` is [`count`]`(what)`: any other fails the
/// assertion below, and so the build.
const fn names<const N: usize>(what: Has) -> [&'static str; N] {
    let mut names = [""; N];
    let mut found = 0;
    let mut at = 0;
    while at < LANGUAGES.len() {
        if has(&LANGUAGES[at], what) {
            names[found] = LANGUAGES[at].name;
            found += 1;
        }
        at += 1;
    }
    assert!(found == N, "one name per language that has it");
    names
}

/// The stemmers rust-stemmers provides, by the name [`super::TextOptions::stem`] takes.
pub const STEMMER_NAMES: [&str; count(Has::Stemmer)] = names(Has::Stemmer);

/// The languages with a stop list ([`super::StoplistChoice::Language`]): every stemmer's, and Chinese, whose
/// words pdx finds with a dictionary but does not stem.
pub const STOPLIST_LANGUAGES: [&str; count(Has::StopList)] = names(Has::StopList);

/// The row of the language `name`.
fn language(name: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|language| language.name == name)
}

/// `word` as the stemmer `name` (one of [`STEMMER_NAMES`]) stems it (a phrase: each of its words); `None` for
/// an unknown stemmer.
pub fn stem_word(name: &str, word: &str) -> Option<String> {
    stemmer_algorithm(name)
        .map(|algorithm| stem_phrase(&Stemmer::create(algorithm), word).into_owned())
}

/// The stem of a word, or of a phrase ([`super::TextOptions::ngrams`]): the stems of its words, joined by the
/// single spaces that join them, so that "space shuttles" and "space shuttle" are one term.
pub(super) fn stem_phrase<'w>(stemmer: &Stemmer, phrase: &'w str) -> Cow<'w, str> {
    if !phrase.contains(' ') {
        return stemmer.stem(phrase);
    }
    let stems: Vec<Cow<str>> = phrase.split(' ').map(|word| stemmer.stem(word)).collect();
    Cow::Owned(stems.join(" "))
}

pub(super) fn stemmer_algorithm(name: &str) -> Option<Algorithm> {
    language(name)?.stemmer
}

/// The stop words of the language `name` (one of [`STOPLIST_LANGUAGES`]), lower-cased; `None` for a language
/// without a list.
pub fn language_stop_words(name: &str) -> Option<HashSet<String>> {
    let code = match language(name)?.stop_list? {
        StopList::Shipped => return Some(parse_stoplist(DEFAULT_STOPLIST)),
        StopList::Snowball(code) => code,
    };
    let words = stop_words::lookup(code)?;
    Some(
        words
            .iter()
            .map(|word| word.trim().to_lowercase())
            .filter(|word| !word.is_empty())
            .collect(),
    )
}

/// Stop words from a list: one per line, lower-cased; `#` starts a comment.
pub fn parse_stoplist(text: &str) -> HashSet<String> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stemmer_and_chinese_have_a_stop_list() {
        for language in STEMMER_NAMES {
            assert!(
                STOPLIST_LANGUAGES.contains(&language),
                "{language} has a stemmer but no stop list"
            );
            assert!(stem_word(language, "running").is_some(), "{language}");
        }
        // Chinese has a stop list and no stemmer: the two lists are not one.
        assert!(STOPLIST_LANGUAGES.contains(&"chinese"));
        assert!(stem_word("chinese", "我们").is_none());
        assert_eq!(STEMMER_NAMES.len(), 18);
        assert_eq!(STOPLIST_LANGUAGES.len(), 19);
        // Both lists show in alphabetical order (in errors and in the help).
        assert!(STEMMER_NAMES.is_sorted() && STOPLIST_LANGUAGES.is_sorted());
        for language in STOPLIST_LANGUAGES {
            let words = language_stop_words(language).expect("a list");
            // The shortest published list (Turkish) has 52 words.
            assert!(words.len() >= 50, "{language}: {} words", words.len());
            assert!(words.iter().all(|w| *w == w.to_lowercase()));
        }
        assert!(language_stop_words("klingon").is_none());
    }

    #[test]
    fn english_is_the_shipped_list_and_the_others_their_own() {
        assert_eq!(
            language_stop_words("english"),
            Some(parse_stoplist(DEFAULT_STOPLIST))
        );
        let french = language_stop_words("french").expect("french");
        assert!(french.contains("les") && french.contains("avec"));
        assert!(!french.contains("the"));
        let german = language_stop_words("german").expect("german");
        assert!(german.contains("und") && german.contains("über"));
        let russian = language_stop_words("russian").expect("russian");
        assert!(russian.contains("когда"));
        let chinese = language_stop_words("chinese").expect("chinese");
        assert!(chinese.contains("我们"));
    }
}
