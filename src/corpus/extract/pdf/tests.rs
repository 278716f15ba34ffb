//! Hostile PDFs, written byte by byte: forms that draw themselves or nest deep, streams that inflate far past
//! their size, pages that draw too much, and the quote operators pdf-extract does not know.

use std::io::Write;

use super::*;

/// A PDF of `objects` (numbered from 1; the first the catalog), with a cross-reference table.
pub(in crate::corpus::extract) fn pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut file = b"%PDF-1.5\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::new();
    for (index, body) in objects.iter().enumerate() {
        offsets.push(file.len());
        file.extend_from_slice(format!("{} 0 obj\n", index + 1).as_bytes());
        file.extend_from_slice(body);
        file.extend_from_slice(b"\nendobj\n");
    }
    let xref = file.len();
    file.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        file.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    file.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    file
}

/// A stream object: `dictionary`'s entries, its length, then `data`.
pub(in crate::corpus::extract) fn stream(dictionary: &str, data: &[u8]) -> Vec<u8> {
    let mut object = format!("<< {dictionary} /Length {} >>\nstream\n", data.len()).into_bytes();
    object.extend_from_slice(data);
    object.extend_from_slice(b"\nendstream");
    object
}

/// `data` deflated, for a stream with `/Filter /FlateDecode`.
pub(in crate::corpus::extract) fn deflated(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data).expect("compresses");
    encoder.finish().expect("compresses")
}

/// A one-page PDF whose page draws `content` with font `F1` (Helvetica) and the `resources` given (inside its
/// resources dictionary), and then the `extra` objects, numbered from 6.
pub(in crate::corpus::extract) fn one_page(
    content: &[u8],
    resources: &str,
    extra: Vec<Vec<u8>>,
) -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 595 842] >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> {resources} >> /Contents 5 0 R >>"
        )
        .into_bytes(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_vec(),
        stream("/Filter /FlateDecode", &deflated(content)),
    ];
    objects.extend(extra);
    pdf(&objects)
}

/// A form XObject (`/X0` in the page's resources is object 6) whose content is `content`, with `resources` of
/// its own when given.
fn form(content: &[u8], resources: Option<&str>) -> Vec<u8> {
    let resources = resources.map_or(String::new(), |r| format!("/Resources << {r} >>"));
    stream(
        &format!(
            "/Type /XObject /Subtype /Form /BBox [0 0 595 842] {resources} /Filter /FlateDecode"
        ),
        &deflated(content),
    )
}

/// A page that draws form 6, which draws form 7, ... `depth` forms deep, each showing a word.
pub(in crate::corpus::extract) fn nested_forms(depth: usize) -> Vec<u8> {
    let forms = (0..depth)
        .map(|level| {
            let id = 6 + level;
            let show = format!("BT /F1 12 Tf 50 700 Td (level{level}) Tj ET");
            match level + 1 < depth {
                true => form(
                    format!("{show} /X Do").as_bytes(),
                    Some(&format!(
                        "/Font << /F1 4 0 R >> /XObject << /X {} 0 R >>",
                        id + 1
                    )),
                ),
                false => form(show.as_bytes(), Some("/Font << /F1 4 0 R >>")),
            }
        })
        .collect();
    one_page(b"/X0 Do", "/XObject << /X0 6 0 R >>", forms)
}

/// A page whose form draws itself: it has no resources of its own, so its `/X0` is the page's, itself.
pub(in crate::corpus::extract) fn self_drawing_form() -> Vec<u8> {
    one_page(
        b"BT /F1 12 Tf 50 750 Td (Hello) Tj ET /X0 Do",
        "/XObject << /X0 6 0 R >>",
        vec![form(b"BT /F1 12 Tf 50 700 Td (again) Tj ET /X0 Do", None)],
    )
}

fn read_on_a_small_stack(bytes: Vec<u8>) -> Result<Extracted, ExtractError> {
    // A quarter of a worker thread's stack.
    std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(move || read(&bytes))
        .expect("a thread")
        .join()
        .expect("no panic")
}

#[test]
fn a_form_that_draws_itself_is_refused_not_followed_until_the_stack_overflows() {
    let error = read(&self_drawing_form()).expect_err("refused");
    assert_eq!(
        error,
        ExtractError::Damaged("a form XObject draws itself".to_string())
    );
}

#[test]
fn forms_nested_to_the_limit_are_read_on_a_small_stack_and_deeper_ones_refused() {
    let read = read_on_a_small_stack(nested_forms(prepare::MAX_FORM_DEPTH)).expect("reads");
    assert!(
        read.text.contains("level0") && read.text.contains("level31"),
        "{}",
        read.text
    );
    let error = read_on_a_small_stack(nested_forms(prepare::MAX_FORM_DEPTH + 1)).expect_err("deep");
    assert!(
        error.to_string().contains("nested more than 32 deep"),
        "{error}"
    );
}

#[test]
fn text_shown_by_the_quote_operators_is_read() {
    let content = b"BT /F1 12 Tf 14 TL 50 750 Td (First) Tj (Hello) ' 1 2 (World) \" ET";
    let read = read(&one_page(content, "", Vec::new())).expect("reads");
    let words: Vec<&str> = read.text.split_whitespace().collect();
    assert_eq!(words, ["First", "Hello", "World"], "{:?}", read.text);
}

#[test]
fn a_page_of_millions_of_path_segments_is_read_for_its_text() {
    // 48 MiB of line segments deflated to a few dozen kilobytes: pdf-extract parsed them all, 5 GB at once.
    let mut content = b"BT /F1 12 Tf 50 750 Td (Bomb) Tj ET\n".to_vec();
    content.extend_from_slice(&b"0 0 m\n".repeat(8 << 20));
    let read = read(&one_page(&content, "", Vec::new())).expect("reads");
    assert_eq!(read.text.trim(), "Bomb");
}

#[test]
fn a_form_drawn_too_often_or_a_page_of_too_many_operators_is_too_large() {
    // 1 MiB of text drawn 2,000 times: 2 GiB of content for pdf-extract to parse.
    let big_form = form(&b"(x) Tj\n".repeat(150_000), None);
    let page = one_page(
        &b"/X0 Do\n".repeat(2_000),
        "/XObject << /X0 6 0 R >>",
        vec![big_form],
    );
    let error = read(&page).expect_err("too much work");
    assert!(matches!(error, ExtractError::TooLarge(_)), "{error:?}");
    let page = one_page(&b"(a) Tj\n".repeat(1_100_000), "", Vec::new());
    let error = read(&page).expect_err("too many operators");
    assert!(
        error.to_string().contains("operators and operands"),
        "{error}"
    );
}

#[test]
fn object_streams_that_inflate_past_the_budget_together_are_refused_as_lopdf_loads_them() {
    // Each under the bound of one stream, together over the bound of a document.
    let mut inner = b"7 0 << /A 1 >>".to_vec();
    inner.resize(130 << 20, b' ');
    let packed = deflated(&inner);
    drop(inner);
    let object_stream = || stream("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", &packed);
    let file = one_page(
        b"BT /F1 12 Tf (x) Tj ET",
        "",
        vec![object_stream(), object_stream()],
    );
    let error = read(&file).expect_err("too large");
    assert_eq!(error, prepare::too_large());
}

#[test]
fn a_page_tree_whose_parents_loop_is_read() {
    // Neither the page nor its parents give a size, and the parent's parent is the parent: pdf-extract looked
    // the size up the tree by recursion, forever.
    let objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 2 0 R >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_vec(),
        stream("", b"BT /F1 12 Tf 50 700 Td (loop) Tj ET"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
    ];
    let read = read_on_a_small_stack(pdf(&objects)).expect("reads");
    assert_eq!(read.text.trim(), "loop");
}
