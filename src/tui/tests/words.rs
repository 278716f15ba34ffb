//! Terms are shown as words: the Terms tab of the demo lists no stem that differs from its word.

use crossterm::event::KeyCode;

use super::{key, screen_text, two_splits};

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
