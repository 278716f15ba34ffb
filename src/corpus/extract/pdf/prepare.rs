//! A loaded PDF made safe for pdf-extract, which trusts what it reads: it inflates every stream it reads whole,
//! draws a form XObject by calling itself (a form that draws itself recurses until the stack overflows and the
//! process aborts; 130 levels take a megabyte of stack), looks a page's resources and size up its tree by
//! recursion too, parses each content stream whole into operations, and makes each font again on every page.
//!
//! Before it runs, every stream it will read is decoded here within [`CONTENT_LIMIT`] for the whole document
//! and stored decoded, content streams cut down to their text ([`content::rewrite`]); images and TrueType
//! programs, which it decodes and never uses, are emptied; each page gets its resources and size directly;
//! and the drawing of forms is walked: a form that draws itself, forms nested deeper than [`MAX_FORM_DEPTH`],
//! more work than [`WORK_LIMIT`] (the bytes of every content stream each time it is drawn, and of every font
//! each page makes) or more parsed at once than [`TOKENS_IN_FLIGHT_LIMIT`] refuse the document.

use lopdf::{Dictionary, Document, Object, ObjectId, Stream};
use rustc_hash::{FxHashMap, FxHashSet};

use super::super::ExtractError;
use super::content::{self, Rewritten};
use super::decode::{self, STREAM_LIMIT};

/// The most a document's streams may decode to, all together: its object streams as it loads, then its
/// contents, forms and fonts. As much as a Word or OpenDocument text's part may unpack to.
pub(super) const CONTENT_LIMIT: u64 = 256 << 20;

/// The most work pdf-extract may be handed: the bytes of every content stream, counted each time it is drawn,
/// and of every font's streams, counted on each page that uses the font (pdf-extract makes its fonts again on
/// every page).
const WORK_LIMIT: u64 = 1 << 30;

/// How deep forms may be drawn within forms: pdf-extract takes up to 4 KiB of stack a level, and this keeps
/// a page within a sixteenth of a worker thread's 2 MiB. Real files nest a few deep.
pub(super) const MAX_FORM_DEPTH: usize = 32;

/// The most operands and operators pdf-extract may hold parsed at once: a page's content and the forms it is
/// drawing, about 190 bytes each (this bound: under 400 MB).
const TOKENS_IN_FLIGHT_LIMIT: u64 = 2_000_000;

/// A page's size when neither it nor its ancestors give one (pdf-extract needs one): US Letter.
const DEFAULT_MEDIA_BOX: [i64; 4] = [0, 0, 612, 792];

/// How far up the page tree a page's inherited entries are looked for (lopdf walks the tree no deeper).
const INHERITANCE_LIMIT: usize = 256;

/// What is left of [`CONTENT_LIMIT`] for a document.
pub(super) struct Budget {
    left: u64,
}

impl Budget {
    pub(super) fn new() -> Budget {
        Budget {
            left: CONTENT_LIMIT,
        }
    }

    pub(super) fn left(&self) -> u64 {
        self.left
    }

    /// `stream` decoded, its size taken from what is left.
    pub(super) fn decode(&mut self, stream: &Stream) -> Result<Vec<u8>, ExtractError> {
        let data = decode::decoded(stream, self.left.min(STREAM_LIMIT)).map_err(|_| too_large())?;
        self.spend(data.len() as u64)?;
        Ok(data)
    }

    pub(super) fn spend(&mut self, bytes: u64) -> Result<(), ExtractError> {
        self.left = self.left.checked_sub(bytes).ok_or_else(too_large)?;
        Ok(())
    }
}

pub(super) fn too_large() -> ExtractError {
    ExtractError::TooLarge(format!(
        "its streams decode to more than {} MiB",
        CONTENT_LIMIT >> 20
    ))
}

fn too_much_work() -> ExtractError {
    ExtractError::TooLarge(format!(
        "its pages draw more than {} GiB of content and fonts",
        WORK_LIMIT >> 30
    ))
}

/// A content stream, rewritten and stored: what the walk needs of it.
#[derive(Default)]
struct Facts {
    bytes: u64,
    tokens: u64,
    drawn: Vec<(Vec<u8>, u64)>,
    fonts: Vec<Vec<u8>>,
}

impl Facts {
    fn of(rewritten: &Rewritten) -> Facts {
        Facts {
            bytes: rewritten.content.len() as u64,
            tokens: rewritten.tokens,
            drawn: rewritten
                .drawn
                .iter()
                .map(|(name, count)| (name.clone(), *count))
                .collect(),
            fonts: rewritten.fonts.iter().cloned().collect(),
        }
    }
}

/// What drawing a content stream with its resources costs, the forms it draws included.
#[derive(Clone, Default)]
struct Summary {
    work: u64,
    tokens_in_flight: u64,
    /// How many forms deep it draws.
    height: usize,
    /// The streams of the fonts it sets.
    font_streams: FxHashSet<ObjectId>,
}

/// A content stream drawn with the resources of the page or form that owns them (a form without resources of
/// its own uses those of whoever draws it, as pdf-extract does).
type Node = (ObjectId, ObjectId);

struct Preparer<'d> {
    document: &'d mut Document,
    budget: &'d mut Budget,
    contents: FxHashMap<ObjectId, Facts>,
    nodes: FxHashMap<Node, Summary>,
    drawing: FxHashSet<Node>,
    font_stream_sizes: FxHashMap<ObjectId, u64>,
}

/// Make `document` safe for pdf-extract, as the module says.
pub(super) fn prepare(document: &mut Document, budget: &mut Budget) -> Result<(), ExtractError> {
    empty_unread_streams(document);
    document.max_id = document.objects.keys().map(|id| id.0).max().unwrap_or(0);
    let pages: Vec<ObjectId> = document.get_pages().into_values().collect();
    let mut preparer = Preparer {
        document,
        budget,
        contents: FxHashMap::default(),
        nodes: FxHashMap::default(),
        drawing: FxHashSet::default(),
        font_stream_sizes: FxHashMap::default(),
    };
    // Pages that share their content streams share the rewritten stream.
    let mut page_contents: FxHashMap<Vec<ObjectId>, ObjectId> = FxHashMap::default();
    let mut work = 0u64;
    for page in pages {
        settle_inherited(preparer.document, page);
        let streams = preparer.document.get_page_contents(page);
        let content = match page_contents.get(&streams) {
            Some(&content) => content,
            None => {
                let content = preparer.rewrite_page(&streams)?;
                page_contents.insert(streams, content);
                content
            }
        };
        if let Ok(dictionary) = preparer.document.get_dictionary_mut(page) {
            dictionary.set("Contents", Object::Reference(content));
        }
        let summary = preparer.node((content, page), 0)?;
        work = work
            .saturating_add(summary.work)
            .saturating_add(preparer.font_work(&summary.font_streams)?);
        if work > WORK_LIMIT {
            return Err(too_much_work());
        }
    }
    Ok(())
}

impl Preparer<'_> {
    /// A page's content streams decoded, joined (as lopdf joins them), rewritten and stored as one new stream.
    fn rewrite_page(&mut self, streams: &[ObjectId]) -> Result<ObjectId, ExtractError> {
        let mut joined = Vec::new();
        for id in streams {
            if let Ok(Object::Stream(stream)) = self.document.get_object(*id) {
                joined.extend_from_slice(&self.budget.decode(stream)?);
                joined.push(b'\n');
            }
        }
        let rewritten = content::rewrite(&joined);
        let facts = Facts::of(&rewritten);
        let id = self
            .document
            .add_object(Stream::new(Dictionary::new(), rewritten.content));
        self.contents.insert(id, facts);
        Ok(id)
    }

    /// A form's content decoded, rewritten and stored in its place, once.
    fn rewrite_form(&mut self, form: ObjectId) -> Result<(), ExtractError> {
        if self.contents.contains_key(&form) {
            return Ok(());
        }
        let rewritten = match self.document.get_object(form) {
            Ok(Object::Stream(stream)) => content::rewrite(&self.budget.decode(stream)?),
            _ => Rewritten::default(),
        };
        self.contents.insert(form, Facts::of(&rewritten));
        if let Ok(Object::Stream(stream)) = self.document.get_object_mut(form) {
            stream.set_plain_content(rewritten.content);
        }
        Ok(())
    }

    /// What drawing `node` costs: its own content, and each form it draws as often as it draws it.
    fn node(&mut self, node: Node, depth: usize) -> Result<Summary, ExtractError> {
        if let Some(summary) = self.nodes.get(&node) {
            check_depth(depth + summary.height)?;
            return Ok(summary.clone());
        }
        check_depth(depth)?;
        if !self.drawing.insert(node) {
            return Err(ExtractError::Damaged(
                "a form XObject draws itself".to_string(),
            ));
        }
        let (stream, owner) = node;
        self.rewrite_form(stream)?;
        let facts = &self.contents[&stream];
        let (own_bytes, own_tokens) = (facts.bytes, facts.tokens);
        let resources = resources_of(self.document, owner);
        let mut summary = Summary {
            work: own_bytes,
            tokens_in_flight: own_tokens,
            height: 0,
            font_streams: facts
                .fonts
                .iter()
                .filter_map(|name| entry(self.document, resources, b"Font", name))
                .flat_map(|font| font_streams(self.document, font))
                .collect(),
        };
        let children: Vec<(Node, u64)> = facts
            .drawn
            .iter()
            .filter_map(|(name, count)| {
                let target = entry(self.document, resources, b"XObject", name)?;
                let Object::Reference(id) = target else {
                    return None;
                };
                let (id, Object::Stream(form)) = dereferenced(self.document, *id)? else {
                    return None;
                };
                let owner = match form.dict.get(b"Resources") {
                    Ok(_) => id,
                    Err(_) => owner,
                };
                Some(((id, owner), *count))
            })
            .collect();
        let mut deepest = 0;
        for (child, count) in children {
            let drawn = self.node(child, depth + 1)?;
            summary.work = summary
                .work
                .saturating_add(count.saturating_mul(drawn.work));
            if summary.work > WORK_LIMIT {
                return Err(too_much_work());
            }
            deepest = deepest.max(drawn.tokens_in_flight);
            summary.height = summary.height.max(drawn.height + 1);
            summary.font_streams.extend(&drawn.font_streams);
        }
        summary.tokens_in_flight = own_tokens.saturating_add(deepest);
        if summary.tokens_in_flight > TOKENS_IN_FLIGHT_LIMIT {
            return Err(ExtractError::TooLarge(format!(
                "a page draws more than {TOKENS_IN_FLIGHT_LIMIT} operators and operands at once"
            )));
        }
        self.drawing.remove(&node);
        self.nodes.insert(node, summary.clone());
        Ok(summary)
    }

    /// The bytes of the fonts' streams, each decoded and stored decoded the first time it is met.
    fn font_work(&mut self, streams: &FxHashSet<ObjectId>) -> Result<u64, ExtractError> {
        let mut work = 0u64;
        for &id in streams {
            let size = match self.font_stream_sizes.get(&id) {
                Some(&size) => size,
                None => {
                    let decoded = match self.document.get_object(id) {
                        Ok(Object::Stream(stream)) => self.budget.decode(stream)?,
                        _ => Vec::new(),
                    };
                    let size = decoded.len() as u64;
                    if let Ok(Object::Stream(stream)) = self.document.get_object_mut(id) {
                        stream.set_plain_content(decoded);
                    }
                    self.font_stream_sizes.insert(id, size);
                    size
                }
            };
            work = work.saturating_add(size);
        }
        Ok(work)
    }
}

fn check_depth(depth: usize) -> Result<(), ExtractError> {
    match depth > MAX_FORM_DEPTH {
        true => Err(ExtractError::Damaged(format!(
            "form XObjects nested more than {MAX_FORM_DEPTH} deep"
        ))),
        false => Ok(()),
    }
}

/// The object `id` names, following references, and the id of the last one.
fn dereferenced(document: &Document, id: ObjectId) -> Option<(ObjectId, &Object)> {
    let object = document.objects.get(&id)?;
    let (last, object) = document.dereference(object).ok()?;
    Some((last.unwrap_or(id), object))
}

/// The resources dictionary of a page or form.
fn resources_of(document: &Document, owner: ObjectId) -> Option<&Dictionary> {
    let dictionary = match document.get_object(owner).ok()? {
        Object::Dictionary(dictionary) => dictionary,
        Object::Stream(stream) => &stream.dict,
        _ => return None,
    };
    let resources = dictionary.get(b"Resources").ok()?;
    document.dereference(resources).ok()?.1.as_dict().ok()
}

/// Entry `name` of the `category` dictionary (`Font`, `XObject`) of `resources`, as written there.
fn entry<'d>(
    document: &'d Document,
    resources: Option<&'d Dictionary>,
    category: &[u8],
    name: &[u8],
) -> Option<&'d Object> {
    let category = resources?.get(category).ok()?;
    let category = document.dereference(category).ok()?.1.as_dict().ok()?;
    category.get(name).ok()
}

/// The streams a font's dictionaries lead to (its programs, encodings and character maps, its descendants'),
/// within a few levels.
fn font_streams(document: &Document, font: &Object) -> Vec<ObjectId> {
    const DEPTH: usize = 4;
    const OBJECTS: usize = 256;
    let mut streams = Vec::new();
    let mut seen = FxHashSet::default();
    let mut stack = vec![(font, 0usize)];
    while let Some((object, depth)) = stack.pop() {
        let object = match object {
            Object::Reference(id) => {
                if seen.len() >= OBJECTS || !seen.insert(*id) {
                    continue;
                }
                match dereferenced(document, *id) {
                    Some((id, Object::Stream(_))) => {
                        streams.push(id);
                        continue;
                    }
                    Some((_, object)) => object,
                    None => continue,
                }
            }
            object => object,
        };
        if depth == DEPTH {
            continue;
        }
        match object {
            Object::Dictionary(dictionary) => {
                stack.extend(dictionary.iter().map(|(_, value)| (value, depth + 1)));
            }
            Object::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            _ => {}
        }
    }
    streams
}

/// Give each page its resources and size directly (from its nearest ancestor that has them, or empty
/// resources and [`DEFAULT_MEDIA_BOX`]), so that pdf-extract, which looks them up the page tree by recursion,
/// finds them at once even in a tree whose parents loop.
fn settle_inherited(document: &mut Document, page: ObjectId) {
    let media_box = Object::Array(DEFAULT_MEDIA_BOX.iter().map(|&v| v.into()).collect());
    for (key, default) in [
        (&b"Resources"[..], Object::Dictionary(Dictionary::new())),
        (b"MediaBox", media_box),
    ] {
        let found = inherited(document, page, key).unwrap_or(default);
        if let Ok(dictionary) = document.get_dictionary_mut(page)
            && dictionary.get(key).is_err()
        {
            dictionary.set(key, found);
        }
    }
}

fn inherited(document: &Document, page: ObjectId, key: &[u8]) -> Option<Object> {
    let mut node = page;
    for _ in 0..INHERITANCE_LIMIT {
        let dictionary = document.get_dictionary(node).ok()?;
        if let Ok(value) = dictionary.get(key) {
            return Some(value.clone());
        }
        node = dictionary
            .get(b"Parent")
            .and_then(Object::as_reference)
            .ok()?;
    }
    None
}

/// Empty the streams pdf-extract decodes and never uses: images (it draws one as if it were a form, decoding
/// its pixels and parsing them as operators) and TrueType font programs.
fn empty_unread_streams(document: &mut Document) {
    let mut unread: Vec<ObjectId> = Vec::new();
    for (&id, object) in &document.objects {
        let dictionary = match object {
            Object::Stream(stream) => {
                if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Image") {
                    unread.push(id);
                }
                &stream.dict
            }
            Object::Dictionary(dictionary) => dictionary,
            _ => continue,
        };
        if let Ok(program) = dictionary.get(b"FontFile2").and_then(Object::as_reference) {
            unread.push(program);
        }
    }
    for id in unread {
        if let Some(Object::Stream(stream)) = document.objects.get_mut(&id) {
            stream.set_plain_content(Vec::new());
        }
    }
}
