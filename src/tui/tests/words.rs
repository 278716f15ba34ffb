//! Terms are shown as words: the Terms tab of the demo lists no stem that differs from its word, and find takes a
//! word, a stem or a prefix of either.

use ratatui::crossterm::event::KeyCode;

use super::{key, screen_text, two_splits, type_text};

#[test]
fn the_terms_tab_shows_words_not_stems() {
    let mut model = two_splits();
    let matrix = &model.data().matrix;
    let (stems, words) = (matrix.row_names().to_vec(), matrix.row_words().to_vec());
    // A stem that is no word of its own, nor part of a label (the tree shows labels cut short: "computing/compil").
    let labels = model.data().label_names.clone();
    let hidden = |row: usize| {
        let stem = &stems[row];
        stem != &words[row]
            && !words.contains(stem)
            && !labels.iter().any(|l| l.contains(stem.as_str()))
    };
    let mut shown_words = 0;
    key(&mut model, KeyCode::Char('g'));
    for _ in 0..model.visible().len() {
        let detail = model.detail();
        let mut listed_stems = Vec::new();
        for term in detail.top_terms.iter().chain(&detail.discriminating) {
            assert_eq!(term.term, words[term.row], "node {}", detail.node);
            if hidden(term.row) {
                listed_stems.push(stems[term.row].clone());
                shown_words += 1;
            }
        }
        for (width, height) in [(80, 24), (160, 48)] {
            let screen = screen_text(&model, width, height);
            // The term lists: from their heading to the pane's bottom border (the tree's header, say, has a
            // column "share", which is also the stem of "shares").
            let lists: String = screen
                .lines()
                .skip_while(|line| !line.contains("Top terms"))
                .take_while(|line| !line.starts_with('└'))
                .collect::<Vec<_>>()
                .join("\n");
            assert!(!lists.is_empty(), "{screen}");
            let on_screen: Vec<&str> = lists
                .split(|c: char| !c.is_alphanumeric())
                .filter(|token| listed_stems.iter().any(|stem| stem == token))
                .collect();
            assert_eq!(on_screen, Vec::<&str>::new(), "{screen}");
        }
        key(&mut model, KeyCode::Down);
    }
    assert!(
        shown_words > 0,
        "some listed term has a word other than its stem"
    );
}

#[test]
fn find_takes_a_word_a_stem_or_a_prefix_of_either() {
    let mut model = two_splits();
    let matrix = &model.data().matrix;
    let (stems, words) = (matrix.row_names().to_vec(), matrix.row_words().to_vec());
    // A term whose word is not its stem ("serve" for "serv"), found by no title, and the only term whose word or
    // stem starts with its word less the last letter.
    let prefix_of = |word: &str| word[..word.len() - 1].to_string();
    let titled = |text: &str| {
        model.data().documents.iter().any(|d| {
            d.title
                .as_ref()
                .is_some_and(|t| t.to_lowercase().contains(text))
        })
    };
    let row = (0..stems.len())
        .find(|&row| {
            let (stem, word) = (&stems[row], &words[row]);
            let prefix = prefix_of(word);
            stem != word
                && stem.len() >= 4
                && stem.chars().all(|c| c.is_ascii_lowercase())
                && !titled(stem)
                && !titled(&prefix)
                && (0..stems.len()).all(|other| {
                    other == row
                        || !(stems[other].starts_with(&prefix) || words[other].starts_with(&prefix))
                })
        })
        .expect("a term whose word differs from its stem");
    let (stem, word) = (stems[row].clone(), words[row].clone());
    let mut found = Vec::new();
    for text in [word.clone(), stem.clone(), prefix_of(&word)] {
        key(&mut model, KeyCode::Char('g'));
        key(&mut model, KeyCode::Char('/'));
        type_text(&mut model, &text);
        key(&mut model, KeyCode::Enter);
        assert!(
            model.status().starts_with(&format!("term \"{word}\"")),
            "{text}: {}",
            model.status()
        );
        found.push(model.selected());
    }
    assert!(found.iter().all(|&leaf| leaf == found[0]), "{found:?}");
}
