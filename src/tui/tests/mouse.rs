//! The mouse: clicks and the wheel land where the screen shows them.

use super::*;

#[test]
fn a_click_on_a_tab_title_switches_tab_and_focuses_the_detail_pane() {
    for (width, height) in [(80, 24), (160, 48)] {
        let mut model = two_splits();
        let area = ratatui::layout::Rect::new(0, 0, width, height);
        for (title, tab) in [
            ("4 Preview", DetailTab::Preview),
            ("2 Labels", DetailTab::Labels),
            ("1 Terms", DetailTab::Terms),
            ("3 Documents", DetailTab::Documents),
        ] {
            let (column, row) = find_on_screen(&model, width, height, title).expect("tab shown");
            // Anywhere on the title, including its last character.
            let last = column + u16::try_from(title.chars().count() - 1).expect("short");
            for x in [column, last] {
                assert_eq!(
                    view::hit(&model, area, x, row),
                    Region::Tab(tab),
                    "{title} at {x}"
                );
            }
            act(&mut model, Action::Click(Region::Tab(tab)));
            assert_eq!(model.tab(), tab);
            assert_eq!(model.focus(), Pane::Detail);
        }
    }
}

#[test]
fn a_click_on_a_tree_row_selects_the_node_drawn_there() {
    // Enough leaves that the tree scrolls at 80x24.
    let mut model = model();
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "12");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived().leaves.len(), 12);
    key(&mut model, KeyCode::Char('G'));
    key(&mut model, KeyCode::Tab);
    assert_eq!(model.focus(), Pane::Detail);
    for (width, height) in [(80, 24), (160, 48)] {
        let area = ratatui::layout::Rect::new(0, 0, width, height);
        let text = screen_text(&model, width, height);
        let mut rows_hit = 0;
        for (row, line) in text.lines().enumerate() {
            let row = u16::try_from(row).expect("short");
            if let Region::TreeRow(id) = view::hit(&model, area, 3, row) {
                // The row shows that node: its label right after the tree marker.
                let label = format!(" {}", model.label(id));
                let shown = line.split('│').nth(1).unwrap_or_default();
                assert!(
                    shown.contains(&format!("{label} ")) || shown.ends_with(&label),
                    "{width}x{height} row {row}: {id} vs {shown:?}"
                );
                rows_hit += 1;
            }
        }
        assert!(rows_hit >= 8, "{rows_hit} rows at {width}x{height}");
    }
    // Click the root's row (scrolled out of view at 80x24, shown at 160x48).
    let area = ratatui::layout::Rect::new(0, 0, 160, 48);
    let (_, row) = find_on_screen(&model, 160, 48, "▾ #0").expect("root row");
    let region = view::hit(&model, area, 5, row);
    assert_eq!(region, Region::TreeRow(0));
    act(&mut model, Action::Click(region));
    assert_eq!(model.selected(), 0);
    assert_eq!(model.focus(), Pane::Tree);
    // A click on the tree's border focuses the pane without changing the selection.
    key(&mut model, KeyCode::Tab);
    assert_eq!(view::hit(&model, area, 0, 10), Region::Tree);
    act(&mut model, Action::Click(Region::Tree));
    assert_eq!((model.focus(), model.selected()), (Pane::Tree, 0));
}

#[test]
fn the_wheel_moves_the_tree_selection_and_scrolls_the_detail_and_popups() {
    let mut model = two_splits();
    let order: Vec<usize> = model.visible().iter().map(|&(id, _)| id).collect();
    key(&mut model, KeyCode::Char('g'));
    act(
        &mut model,
        Action::Scroll {
            region: Region::Tree,
            down: true,
        },
    );
    assert_eq!(model.selected(), order[1]);
    act(
        &mut model,
        Action::Scroll {
            region: Region::TreeRow(0),
            down: false,
        },
    );
    assert_eq!(model.selected(), order[0]);
    assert_eq!(
        model.focus(),
        Pane::Tree,
        "the wheel does not move the focus"
    );

    // Documents: the cursor moves by one; Terms: the text scrolls by three.
    key(&mut model, KeyCode::Char('3'));
    act(
        &mut model,
        Action::Scroll {
            region: Region::Detail,
            down: true,
        },
    );
    assert_eq!(model.document_cursor(), 1);
    let area = ratatui::layout::Rect::new(0, 0, 160, 48);
    let second_title = {
        let j = model.detail().documents[2];
        let document = &model.data().documents[j];
        document
            .title
            .clone()
            .unwrap_or_else(|| document.id.clone())
    };
    let start: String = second_title.trim().chars().take(20).collect();
    let (column, row) = find_on_screen(&model, 160, 48, &start).expect("document shown");
    let region = view::hit(&model, area, column, row);
    assert_eq!(region, Region::DocumentRow(2));
    act(&mut model, Action::Click(region));
    assert_eq!((model.document_cursor(), model.focus()), (2, Pane::Detail));
    // Far down the list, the row drawn under the cursor is the cursor's document, and a click there finds it.
    key(&mut model, KeyCode::Char('G'));
    let last = model.document_cursor();
    assert_eq!(last, model.detail().documents.len() - 1);
    let title = model.document_heading(model.detail().documents[last]);
    let start: String = title.trim().chars().take(20).collect();
    let (column, row) = find_on_screen(&model, 160, 48, &start).expect("the last document shown");
    assert_eq!(
        view::hit(&model, area, column, row),
        Region::DocumentRow(last)
    );
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('1'));
    act(
        &mut model,
        Action::Scroll {
            region: Region::Detail,
            down: true,
        },
    );
    assert_eq!(model.detail_scroll(), 3);
    act(
        &mut model,
        Action::Scroll {
            region: Region::Detail,
            down: false,
        },
    );
    assert_eq!(model.detail_scroll(), 0);

    // A reader popup scrolls; other popups ignore the wheel; clicks never reach the screen under a popup.
    key(&mut model, KeyCode::Char('?'));
    assert_eq!(view::hit(&model, area, 3, 5), Region::Popup);
    act(
        &mut model,
        Action::Scroll {
            region: Region::Popup,
            down: true,
        },
    );
    assert_eq!(model.popup(), Some(&Popup::Help { scroll: 3 }));
    act(&mut model, Action::Click(Region::Popup));
    assert_eq!(model.popup(), Some(&Popup::Help { scroll: 3 }));
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('a'));
    act(
        &mut model,
        Action::Scroll {
            region: Region::Popup,
            down: true,
        },
    );
    assert_eq!(
        model.popup(),
        Some(&Popup::AutoSplit {
            input: String::new()
        })
    );
}
