//! The languages pdx knows: the Snowball stemmers of rust-stemmers and a stop list for each. English keeps the
//! list shipped in `assets/stoplist-en.txt`; every other language takes the Snowball project's own list for its
//! stemmer (the lists NLTK distributes, through the `stop-words` crate), written to be applied before that
//! stemmer, as pdx applies them.

use std::borrow::Cow;
use std::collections::HashSet;

use rust_stemmers::{Algorithm, Stemmer};

/// The English stop list shipped with pdx (`assets/stoplist-en.txt`).
pub const DEFAULT_STOPLIST: &str = include_str!("../../assets/stoplist-en.txt");

/// The stemmers rust-stemmers provides, by the name [`super::TextOptions::stem`] takes.
pub const STEMMER_NAMES: [&str; 18] = [
    "arabic",
    "danish",
    "dutch",
    "english",
    "finnish",
    "french",
    "german",
    "greek",
    "hungarian",
    "italian",
    "norwegian",
    "portuguese",
    "romanian",
    "russian",
    "spanish",
    "swedish",
    "tamil",
    "turkish",
];

/// The languages with a stop list ([`super::StoplistChoice::Language`]): every stemmer's, and Chinese, whose
/// words pdx finds with a dictionary but does not stem.
pub const STOPLIST_LANGUAGES: [&str; 19] = [
    "arabic",
    "chinese",
    "danish",
    "dutch",
    "english",
    "finnish",
    "french",
    "german",
    "greek",
    "hungarian",
    "italian",
    "norwegian",
    "portuguese",
    "romanian",
    "russian",
    "spanish",
    "swedish",
    "tamil",
    "turkish",
];

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
    Some(match name {
        "arabic" => Algorithm::Arabic,
        "danish" => Algorithm::Danish,
        "dutch" => Algorithm::Dutch,
        "english" => Algorithm::English,
        "finnish" => Algorithm::Finnish,
        "french" => Algorithm::French,
        "german" => Algorithm::German,
        "greek" => Algorithm::Greek,
        "hungarian" => Algorithm::Hungarian,
        "italian" => Algorithm::Italian,
        "norwegian" => Algorithm::Norwegian,
        "portuguese" => Algorithm::Portuguese,
        "romanian" => Algorithm::Romanian,
        "russian" => Algorithm::Russian,
        "spanish" => Algorithm::Spanish,
        "swedish" => Algorithm::Swedish,
        "tamil" => Algorithm::Tamil,
        "turkish" => Algorithm::Turkish,
        _ => return None,
    })
}

/// The ISO 639-1 code under which the `stop-words` crate keeps a language's list.
fn iso_code(language: &str) -> Option<&'static str> {
    Some(match language {
        "arabic" => "ar",
        "chinese" => "zh",
        "danish" => "da",
        "dutch" => "nl",
        "english" => "en",
        "finnish" => "fi",
        "french" => "fr",
        "german" => "de",
        "greek" => "el",
        "hungarian" => "hu",
        "italian" => "it",
        "norwegian" => "no",
        "portuguese" => "pt",
        "romanian" => "ro",
        "russian" => "ru",
        "spanish" => "es",
        "swedish" => "sv",
        "tamil" => "ta",
        "turkish" => "tr",
        _ => return None,
    })
}

/// The stop words of `language` (one of [`STOPLIST_LANGUAGES`]), lower-cased; `None` for a language without a
/// list.
pub fn language_stop_words(language: &str) -> Option<HashSet<String>> {
    if language == "english" {
        return Some(parse_stoplist(DEFAULT_STOPLIST));
    }
    let words = stop_words::lookup(iso_code(language)?)?;
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
        }
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
