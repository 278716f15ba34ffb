//! Documents made to hurt their reader, for the tests of pdx on them: written here once, for the tests that run
//! the binary on them and those that measure what they cost.

use std::path::Path;

use lopdf::{Document, Object, Stream, dictionary};

/// A one-page PDF (written by lopdf) whose page draws `content` with Helvetica as `F1` and, when `form` is given,
/// the form XObject `X0` drawing that content; a form without resources of its own draws with the page's, so
/// that an `/X0 Do` in it draws itself.
pub fn one_page_pdf(content: &[u8], form: Option<&[u8]>) -> Vec<u8> {
    let mut pdf = Document::with_version("1.5");
    let pages = pdf.new_object_id();
    let font = pdf.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let mut resources = dictionary! { "Font" => dictionary! { "F1" => font } };
    if let Some(form) = form {
        let bounds = vec![0.into(), 0.into(), 595.into(), 842.into()];
        let mut stream = Stream::new(
            dictionary! { "Type" => "XObject", "Subtype" => "Form", "BBox" => bounds },
            form.to_vec(),
        );
        stream.compress().expect("compresses");
        resources.set("XObject", dictionary! { "X0" => pdf.add_object(stream) });
    }
    let mut stream = Stream::new(dictionary! {}, content.to_vec());
    stream.compress().expect("compresses");
    let contents = pdf.add_object(stream);
    let page = pdf.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages, "Contents" => contents, "Resources" => resources,
    });
    pdf.objects.insert(
        pages,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog = pdf.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
    pdf.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    pdf.save_to(&mut bytes).expect("saves");
    bytes
}

/// The content of a page that shows `word` and then draws 8 Mi line segments (48 MiB, deflated to 74 KB).
pub fn text_and_path_segments(word: &str) -> Vec<u8> {
    let mut content = format!("BT /F1 12 Tf 50 750 Td ({word}) Tj ET\n").into_bytes();
    content.extend_from_slice(&b"0 0 m\n".repeat(8 << 20));
    content
}

/// An e-mail message holding `depth` messages, each inside the one before.
pub fn nested_message(depth: usize) -> String {
    let mut message = String::from("Subject: top\nContent-Type: message/rfc822\n\n");
    for level in 1..depth {
        message.push_str(&format!(
            "Subject: {level}\nContent-Type: message/rfc822\n\n"
        ));
    }
    message + "Subject: bottom\n\nThe innermost text.\n"
}

/// Two short texts of different words in `folder`, so that a corpus has terms whatever else it holds.
pub fn write_two_texts(folder: &Path) {
    std::fs::write(folder.join("fine.txt"), "orbit rocket").expect("write");
    std::fs::write(folder.join("other.txt"), "bread flour").expect("write");
}
