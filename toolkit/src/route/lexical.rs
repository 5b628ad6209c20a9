//! The built-in lexical routers: [`LexicalRouter`] (BM25F, verb-aware, stemmed) and
//! [`PlainBm25`] (the baseline it is measured against).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::router::{EntryExplanation, Explanation, Weighed};
use super::{Catalog, CatalogEntry, RouteFuture, RouteRequest, Router, Routing};
use super::{lexicon, message};

/// How much a match in each field of an entry counts (BM25F field weights).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldWeights {
    /// The words of the name (`getNavItem` -> get, nav, item).
    pub name: f32,
    /// The words of old names.
    pub aliases: f32,
    /// The one-line summary (also part of the description, so it counts twice).
    pub summary: f32,
    /// The full description.
    pub description: f32,
    /// The group.
    pub group: f32,
    /// The tags.
    pub tags: f32,
    /// Parameter names and descriptions.
    pub params: f32,
    /// The guidance.
    pub guidance: f32,
    /// The messages users send when the tool is right (`asked_as`).
    pub asked_as: f32,
    /// How much a verb class match (`remove` ~ `delete`) counts beside the word
    /// itself, for verbs in the message.
    pub verbs: f32,
    /// How much a concept match (`todo` ~ `task`, `photo` ~ `image`) counts beside
    /// the word itself.
    pub concepts: f32,
    /// How much words of the earlier turns count beside the message's (the last
    /// turn; each one before counts half as much again).
    pub turns: f32,
    /// How much a word in a prepositional phrase after the message's verb counts
    /// beside one of the verb's object ("delete the *section* from the page").
    pub phrase: f32,
    /// How much the verb classes of a verb-like word count when its clause already
    /// opened with a verb ("add milk to my *list*"), beside a verb's.
    pub secondary_verbs: f32,
    /// How strongly a word that the tools of many servers (groups) use is
    /// damped, as an exponent of its server-level IDF relative to a word of one
    /// server: 0 (the default) turns the damping off. It applies only to
    /// catalogs whose entries come from at least [`MIN_SERVERS`] groups:
    /// "latest" or "team", in the descriptions of a dozen servers, then no
    /// longer pulls in whichever server says it most. Off by default because
    /// it did not help on the public sets (see BENCHMARKS.md); try 0.5 for a
    /// catalog whose groups are all external servers.
    pub servers: f32,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            name: 3.0,
            aliases: 1.0,
            summary: 1.0,
            description: 1.0,
            group: 1.5,
            tags: 1.0,
            params: 0.4,
            guidance: 0.4,
            asked_as: 1.0,
            verbs: 1.0,
            concepts: 0.8,
            turns: 0.4,
            phrase: 0.9,
            secondary_verbs: 0.0,
            servers: SERVER_DAMPING,
        }
    }
}

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;

/// The default [`FieldWeights::servers`]: off. Measured on every public set
/// (BENCHMARKS.md, "Catalogs of many servers"): 0.5 lowered the MCP servers'
/// recall@5 from 69.8 to 67.5 and the examples' recall@1, and 0.1 moved nothing
/// beyond the noise, because a catalog's groups are as often one server's
/// entities (`tasks`, `reminders`) as servers.
const SERVER_DAMPING: f32 = 0.0;

/// How many groups a catalog's entries must come from before a word's spread
/// across them damps it ([`FieldWeights::servers`]): with two or three, one
/// server's own words would be damped by the other's.
pub const MIN_SERVERS: usize = 4;

/// Per term of an index: `(idf_s(g) / idf_s(1)) ^ exponent`, where `g` is how
/// many of the catalog's `servers` groups have an entry with the term and
/// `idf_s` is BM25's IDF over groups; 1 for a term of one group, less the more
/// groups use it. Entries without a group count for none.
fn server_damping(
    pairs: &[(u32, u32, f32)],
    terms: usize,
    groups: &[Option<u32>],
    servers: usize,
    exponent: f32,
) -> Vec<f32> {
    let mut factor = vec![1.0_f32; terms];
    if servers < MIN_SERVERS || exponent <= 0.0 {
        return factor;
    }
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    let mut spread = vec![0_u32; terms];
    for &(term, document, _) in pairs {
        if let Some(Some(group)) = groups.get(document as usize)
            && seen.insert((term, *group))
        {
            spread[term as usize] += 1;
        }
    }
    #[allow(clippy::cast_precision_loss)] // far below 2^24 groups
    let servers = servers as f32;
    let idf = |g: f32| (1.0 + (servers - g + 0.5) / (g + 0.5)).ln();
    let one = idf(1.0);
    for (factor, &g) in factor.iter_mut().zip(&spread) {
        if g > 1 {
            #[allow(clippy::cast_precision_loss)]
            let g = g as f32;
            *factor = (idf(g) / one).max(0.0).powf(exponent);
        }
    }
    factor
}

/// One field of a document while the index is built.
struct Field<'t> {
    text: Vec<&'t str>,
    weight: f32,
    /// Length normalisation: short fields (names) barely normalised.
    b: f32,
}

fn field(text: Vec<&str>, weight: f32, b: f32) -> Field<'_> {
    Field { text, weight, b }
}

/// An inverted index with each (term, entry) pair's BM25F score precomputed: a
/// query only adds numbers up.
#[derive(Debug, Default)]
struct Index {
    terms: HashMap<String, u32>,
    /// Per term: the entries holding it and the pair's score (IDF included).
    postings: Vec<Vec<(u32, f32)>>,
}

/// How text becomes terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Analyzer {
    /// Name words, stop words out, light stems, verb classes.
    Full,
    /// Lowercase words split on anything but letters and digits; nothing else.
    Plain,
}

/// A term of a field or query: a word's stem, or a verb class or concept term
/// (`@delete`, `#task`) borrowed from the word tables without a copy.
type Term = Cow<'static, str>;

/// A term with how much it counts within its field or query.
fn analyze(text: &str, analyzer: Analyzer, weights: (f32, f32), out: &mut Vec<(Term, f32)>) {
    let (verb_weight, concept_weight) = weights;
    match analyzer {
        Analyzer::Plain => out.extend(
            text.to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .filter(|word| !word.is_empty())
                .map(|word| (Cow::Owned(word.to_owned()), 1.0)),
        ),
        Analyzer::Full => {
            let mut words = lexicon::words(text);
            lexicon::replace_phrases(&mut words);
            for word in words {
                // Stop words are most words: known before stemming.
                if lexicon::is_stop_word(&word) {
                    continue;
                }
                let stemmed = lexicon::stem(&word);
                let lookup = lexicon::look_up(&word, &stemmed);
                for &(class, weight) in lookup.verbs {
                    out.push((Cow::Borrowed(class), weight * verb_weight));
                }
                for &concept in lookup.concepts {
                    out.push((Cow::Borrowed(concept), concept_weight));
                }
                out.push((Cow::Owned(stemmed), 1.0));
            }
        }
    }
}

/// The verb classes that choose among one entity's tools for one clause, and
/// whether the clause only asks (a question no verb opens: only an entry the
/// message's words already matched may be chosen).
type ClauseVerb = (&'static [(&'static str, f32)], bool);

/// The message's terms, read clause by clause ([`message::read_message`]): verb
/// classes of verb-like words by their role, and an entity's name (a word of
/// `entities`) in a prepositional phrase after the verb weighed `weights.phrase`. Pushes the verb classes of each clause's
/// leading verb to `verbs`.
fn analyze_message(
    message: &str,
    weights: &FieldWeights,
    entities: &HashSet<String>,
    out: &mut Vec<(Term, f32)>,
    data: &mut Vec<(Term, f32)>,
    verbs: &mut Vec<ClauseVerb>,
    steps: &mut Vec<Vec<(Term, f32)>>,
) {
    // The words of each step: a clause that a verb opens starts one ("find the
    // cheapest flight *and save* it to a spreadsheet"); words before the first
    // such verb belong to the first step.
    let mut leading = 0_usize;
    for word in message::read_message(message) {
        let verb_weight = match word.role {
            message::Role::Leading => {
                if verbs.len() < MAX_CLAUSE_VERBS {
                    verbs.push((word.verbs, false));
                }
                leading += 1;
                weights.verbs
            }
            message::Role::Verb => weights.verbs,
            message::Role::Secondary => weights.verbs * weights.secondary_verbs,
            message::Role::Other => 0.0,
            message::Role::Particle => continue,
            message::Role::Asking => {
                verbs.push((word.verbs, true));
                0.0
            }
        };
        if word.stop {
            continue;
        }
        let stemmed = word.stem;
        if word.data {
            data.push((Cow::Owned(stemmed), DATA_WEIGHT));
            continue;
        }
        // Only an entity's name is outweighed in a phrase: other words there
        // (a city, a date, a value) are what they are anywhere.
        let weight = if word.in_phrase && entities.contains(&stemmed) {
            weights.phrase
        } else {
            1.0
        };
        let start = out.len();
        if verb_weight > 0.0 {
            for &(class, class_weight) in word.verbs {
                out.push((Cow::Borrowed(class), class_weight * verb_weight * weight));
            }
        }
        for &concept in word.concepts {
            out.push((Cow::Borrowed(concept), weights.concepts * weight));
        }
        out.push((Cow::Owned(stemmed), weight));
        let step = leading.saturating_sub(1);
        if step < MAX_STEPS {
            if steps.len() <= step {
                steps.resize_with(step + 1, Vec::new);
            }
            steps[step].extend_from_slice(&out[start..]);
        }
    }
    // The file names and paths of the message bring in the tools that act on
    // them (a spreadsheet's, a file system's): in the message's terms, and as a
    // step of their own, since the step that names a file ("save it to
    // goods.xlsx") is the one its words alone would not reach.
    let files: Vec<(Term, f32)> = lexicon::file_words(message)
        .into_iter()
        .map(|word| (Cow::Owned(lexicon::stem(word)), FILE_WEIGHT))
        .collect();
    if !files.is_empty() {
        out.extend_from_slice(&files);
        steps.push(files);
    }
}

/// How much a word that a file name or path brings in ([`lexicon::file_words`])
/// counts beside a word of the message.
const FILE_WEIGHT: f32 = 0.7;

/// How many steps of a message are ranked on their own and fused: a request
/// has a handful, a pasted text may have thousands.
const MAX_STEPS: usize = 8;

/// A message as the router read it ([`LexicalRouter::read`]).
struct Reading {
    /// The message's and turns' terms, each once with its summed weight.
    query: Vec<(Term, f32)>,
    /// The user's data: adds to scores, makes nothing a candidate.
    data: Vec<(Term, f32)>,
    /// Each clause's leading verb.
    verbs: Vec<ClauseVerb>,
    /// Each step's terms, then the terms the file names bring, if any.
    steps: Vec<Vec<(Term, f32)>>,
}

/// How many clauses' verbs choose among one entity's tools: each is weighed
/// against every family, so a message of thousands of clauses must not bring
/// thousands (a request has a handful).
const MAX_CLAUSE_VERBS: usize = 16;

/// How much a word of the user's data (a short quotation, a name after "called",
/// a web address's parts) counts beside the message's other words: it names
/// what to act on, and only sometimes the kind of thing a tool acts on
/// ("the 'installation' guide"). It adds to a score but never makes an entry a
/// candidate by itself.
const DATA_WEIGHT: f32 = 0.5;

/// The entries whose names differ only in their verb (`getPage`, `createPage`,
/// `deletePage`): one entity's tools, between which the message's verb decides.
#[derive(Debug, Default)]
struct Families {
    /// Per entry: the verb class of its name (`@get`), if it has one.
    verb: Vec<Option<&'static str>>,
    /// Each family of two or more entries, as entry positions: the tools of one
    /// entity in catalog order, then those of narrower entities
    /// (`getSectionTemplate` among the `section` tools).
    members: Vec<Vec<usize>>,
    /// The stemmed words naming those families' entities (`page`, `nav`, `item`).
    entities: HashSet<String>,
}

impl Families {
    fn build(catalog: &Catalog) -> Self {
        let mut verb = Vec::with_capacity(catalog.len());
        let mut by_rest: HashMap<String, Vec<usize>> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        // Per entry: the stemmed words naming its entity, if its name has a verb.
        let mut rests: Vec<Option<Vec<String>>> = Vec::with_capacity(catalog.len());
        for (position, entry) in catalog.iter().enumerate() {
            let words = lexicon::words(&entry.readable_name());
            // The name's first word that is a verb of the vocabulary; the rest
            // names the entity. A name with none starts with its own verb
            // (`importImage`, `browseImages`): it belongs to the entity's family
            // without a verb that could choose it.
            let found = words
                .iter()
                .enumerate()
                .find_map(|(at, word)| lexicon::verb_term(word).map(|term| (at, Some(term))))
                .or_else(|| (words.len() > 1).then_some((0, None)));
            let Some((at, term)) = found else {
                verb.push(None);
                rests.push(None);
                continue;
            };
            verb.push(term);
            let rest: Vec<String> = words
                .iter()
                .enumerate()
                .filter(|&(other, _)| other != at)
                .map(|(_, word)| lexicon::stem(word))
                .collect();
            if rest.is_empty() {
                rests.push(None);
                continue;
            }
            let key = rest.join(" ");
            rests.push(Some(rest));
            let members = by_rest.entry(key.clone()).or_default();
            if members.is_empty() {
                order.push(key);
            }
            members.push(position);
        }
        let mut entities = HashSet::new();
        let mut members = Vec::new();
        for key in order {
            let Some(mut family) = by_rest.remove(&key) else {
                continue;
            };
            if family.len() < 2 || family.iter().all(|&member| verb[member].is_none()) {
                continue;
            }
            // A tool of a narrower entity (`getSectionTemplate` beside the
            // `section` tools) is one of the family too: the verb that picks
            // `deleteSection` must pick it over the template's tool as well.
            let words: Vec<&str> = key.split(' ').collect();
            for (position, rest) in rests.iter().enumerate() {
                let Some(rest) = rest else { continue };
                if rest.len() > words.len()
                    && words
                        .iter()
                        .all(|word| rest.iter().any(|known| known == word))
                {
                    family.push(position);
                }
            }
            entities.extend(words.iter().map(|word| (*word).to_owned()));
            members.push(family);
        }
        Families {
            verb,
            members,
            entities,
        }
    }

    /// Within each family some message matched, lifts the entry whose verb the
    /// clause's leading verb means most (at least [`LIFT_MIN`]; the best scored of
    /// equals) just above the family's best score: the words chose the entity, the verb chooses among its
    /// tools. An earlier clause's pick stays above a later one's.
    fn lift(
        &self,
        verbs: &[ClauseVerb],
        scores: &mut [f32],
        content: &mut [bool],
        allowed: &dyn Fn(usize) -> bool,
    ) {
        if verbs.is_empty() {
            return;
        }
        for members in &self.members {
            let best = members
                .iter()
                .filter(|&&member| content[member] && allowed(member))
                .map(|&member| scores[member])
                .reduce(f32::max);
            let Some(best) = best else { continue };
            for (clause, &(classes, asking)) in verbs.iter().enumerate() {
                let mut pick: Option<(usize, f32)> = None;
                for &member in members {
                    let Some(verb) = self.verb[member] else {
                        continue;
                    };
                    let Some(&(_, weight)) = classes.iter().find(|(class, _)| *class == verb)
                    else {
                        continue;
                    };
                    // Of two tools the verb means equally, the words decide.
                    let better = pick.is_none_or(|(known, known_weight)| {
                        match weight.total_cmp(&known_weight) {
                            std::cmp::Ordering::Greater => true,
                            std::cmp::Ordering::Equal => scores[member] > scores[known],
                            std::cmp::Ordering::Less => false,
                        }
                    });
                    if weight >= LIFT_MIN
                        && allowed(member)
                        && (!asking || content[member])
                        && better
                    {
                        pick = Some((member, weight));
                    }
                }
                if let Some((member, _)) = pick {
                    #[allow(clippy::cast_precision_loss)] // a handful of clauses
                    let lifted = best + LIFT_STEP * (verbs.len() - clause) as f32;
                    scores[member] = scores[member].max(lifted);
                    // The family's words matched: its picked member is a candidate
                    // even when only verb classes matched it directly (its score may
                    // already be above the family's best through them).
                    content[member] = true;
                }
            }
        }
    }
}

/// The least weight with which a message's verb means a tool's verb for it to
/// choose among one entity's tools (`find` means `search` at 1 and `get` at 0.5;
/// `put` means `create` at 0.5 and does not choose).
const LIFT_MIN: f32 = 0.7;

/// How far above its family's best a lifted entry lands.
const LIFT_STEP: f32 = 1e-3;

impl Index {
    /// Indexes `documents`; `groups` (per document, its group's number, with
    /// `servers` groups in all) damps words many groups share by `exponent`
    /// ([`FieldWeights::servers`]); empty for none.
    fn build(
        documents: &[Vec<Field<'_>>],
        analyzer: Analyzer,
        groups: &[Option<u32>],
        servers: usize,
        exponent: f32,
    ) -> Self {
        let field_count = documents.first().map_or(0, Vec::len);
        // Per document and field: the weighted term frequencies and the length.
        let mut per_document: Vec<Vec<(HashMap<String, f32>, f32)>> = Vec::new();
        let mut total_length = vec![0.0_f32; field_count];
        let mut buffer = Vec::new();
        for fields in documents {
            let mut per_field = Vec::with_capacity(fields.len());
            for (position, field) in fields.iter().enumerate() {
                let mut frequencies: HashMap<String, f32> = HashMap::new();
                let mut length = 0.0;
                for part in &field.text {
                    buffer.clear();
                    analyze(part, analyzer, (1.0, 1.0), &mut buffer);
                    for (term, weight) in buffer.drain(..) {
                        length += weight;
                        *frequencies.entry(term.into_owned()).or_default() += weight;
                    }
                }
                total_length[position] += length;
                per_field.push((frequencies, length));
            }
            per_document.push(per_field);
        }
        #[allow(clippy::cast_precision_loss)] // catalogs are far below 2^24 entries
        let count = documents.len().max(1) as f32;
        let average: Vec<f32> = total_length.iter().map(|total| total / count).collect();
        // Per document: the saturated BM25F term frequency of each of its terms.
        let mut index = Index::default();
        let mut document_frequency: Vec<u32> = Vec::new();
        let mut pairs: Vec<(u32, u32, f32)> = Vec::new();
        for (document, per_field) in per_document.iter().enumerate() {
            let mut combined: HashMap<&str, f32> = HashMap::new();
            for (position, (frequencies, length)) in per_field.iter().enumerate() {
                let field = &documents[document][position];
                let norm = if average[position] > 0.0 {
                    1.0 - field.b + field.b * length / average[position]
                } else {
                    1.0
                };
                for (term, frequency) in frequencies {
                    *combined.entry(term.as_str()).or_default() += field.weight * frequency / norm;
                }
            }
            let mut combined: Vec<(&str, f32)> = combined.into_iter().collect();
            combined.sort_by(|a, b| a.0.cmp(b.0));
            for (term, tf) in combined {
                let next = u32::try_from(index.terms.len()).unwrap_or(u32::MAX);
                let id = *index.terms.entry(term.to_owned()).or_insert(next);
                if id as usize == document_frequency.len() {
                    document_frequency.push(0);
                }
                document_frequency[id as usize] += 1;
                let document = u32::try_from(document).unwrap_or(u32::MAX);
                pairs.push((id, document, tf / (K1 + tf)));
            }
        }
        index.postings = vec![Vec::new(); document_frequency.len()];
        let damping = server_damping(&pairs, document_frequency.len(), groups, servers, exponent);
        for (id, document, saturated) in pairs {
            #[allow(clippy::cast_precision_loss)]
            let df = document_frequency[id as usize] as f32;
            let idf = (1.0 + (count - df + 0.5) / (df + 0.5)).ln() * damping[id as usize];
            index.postings[id as usize].push((document, idf * saturated));
        }
        index
    }
}

/// One ranked entry with its score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored<'a> {
    /// The entry.
    pub entry: &'a CatalogEntry,
    /// Its score (higher is better; only comparable within one query).
    pub score: f32,
}

/// The built-in router: BM25F over every word a catalog entry has, aware of verbs
/// and plurals. Deterministic, no network; the index is built once in
/// [`LexicalRouter::new`], and routing one message against a thousand tools takes
/// microseconds (see BENCHMARKS.md).
///
/// - Names are split into words (`getNavItem` -> get, nav, item; `delete_tasks`).
/// - Verbs in the message and in the entries map to toolkit's vocabulary: list,
///   fetch and show lean to `get`, find to `search`, add and make to `create`,
///   remove, drop, cancel and "get rid of" to `delete`, change, rename, mark and
///   move to `update`.
/// - The message is read clause by clause: the verb opening a clause ("please
///   remove the page", "take the item out") chooses among one entity's tools
///   (`getPage`, `createPage`, `deletePage`: names that differ only in the verb),
///   whatever stray verbs their descriptions hold; a word spelled like a verb
///   elsewhere in that clause, or after a determiner ("add milk to *my list*"),
///   is a noun; an entity named in a prepositional phrase after the verb counts
///   less than the verb's object ([`FieldWeights::phrase`]). One entity's tools
///   include those of a narrower entity (`getSectionTemplate` beside the section
///   tools) and those whose name's verb is not a vocabulary verb (`importImage`).
/// - A question no verb opens ("what's in the menu?", "which posts are
///   unpublished") asks to see: among one entity's tools it chooses as `get`
///   would, or as `search` when it asks about one thing ("anyone called Priya?",
///   "who is Marta"). A statement no verb opens is told by its verb ("the Press
///   link can go"). A later clause that spares something ("but keep the task",
///   "; don't touch my tasks") is not read.
/// - A short quotation, a name after "called", a path and a web address's parts
///   are the user's data: they count at half weight, without verb classes or
///   concepts, and never make a tool a candidate alone (`delete the 'Blog' link`
///   does not reach the blog post tools); a web address also reads as `url`.
/// - Names of runtime tools (an external MCP server's) are read with their
///   escape undone (`get-2dbilibili-2drank` is get, bilibili, rank:
///   [`CatalogEntry::readable_name`]).
/// - A file name or path in the message (`/root/excel/goods.xlsx`, `report.pdf`)
///   brings in the words of the tools that act on that kind of file (`.xlsx`:
///   excel, spreadsheet, workbook, sheet; any file: `file`; a directory:
///   directory, folder), at weight 0.7, and is also a step of its own.
/// - A message of several steps ("search the web for prices *and save them* to
///   goods.xlsx") keeps every step's tools: each step (a clause a verb opens,
///   with content words) is also ranked on its own words, and its best tool
///   takes the place of the last pick no step needs (never one of the first
///   three), after the whole message's picks. A message with a question mark is read as one request.
/// - A light stemmer joins task/tasks, memory/memories, remind/reminder,
///   note/noted, name/naming.
/// - The last three turns count, less than the message.
/// - It abstains when no entry shares a word (beyond verbs) with the message.
#[derive(Debug)]
pub struct LexicalRouter {
    catalog: Catalog,
    index: Index,
    families: Families,
    weights: FieldWeights,
}

impl LexicalRouter {
    /// Indexes `catalog` with the default [`FieldWeights`].
    #[must_use]
    pub fn new(catalog: Catalog) -> Self {
        LexicalRouter::with_weights(catalog, FieldWeights::default())
    }

    /// Indexes `catalog` with these field weights.
    #[must_use]
    pub fn with_weights(catalog: Catalog, weights: FieldWeights) -> Self {
        let names: Vec<Cow<'_, str>> = catalog.iter().map(CatalogEntry::readable_name).collect();
        let documents: Vec<Vec<Field<'_>>> = catalog
            .iter()
            .zip(&names)
            .map(|(entry, name)| {
                vec![
                    field(vec![name], weights.name, 0.3),
                    field(
                        entry.aliases.iter().map(String::as_str).collect(),
                        weights.aliases,
                        0.3,
                    ),
                    field(vec![&entry.summary], weights.summary, 0.75),
                    field(vec![&entry.description], weights.description, 0.75),
                    field(
                        entry.group.as_deref().into_iter().collect(),
                        weights.group,
                        0.3,
                    ),
                    field(
                        entry.tags.iter().map(String::as_str).collect(),
                        weights.tags,
                        0.3,
                    ),
                    field(
                        entry
                            .params
                            .iter()
                            .flat_map(|param| [param.name.as_str(), param.description.as_str()])
                            .collect(),
                        weights.params,
                        0.75,
                    ),
                    field(
                        entry.guidance.as_deref().into_iter().collect(),
                        weights.guidance,
                        0.75,
                    ),
                    // Messages are many short texts: normalized by length like
                    // the description, so a tool with ten of them does not
                    // outrank one with two on a shared word.
                    field(
                        entry.asked_as.iter().map(String::as_str).collect(),
                        weights.asked_as,
                        0.75,
                    ),
                ]
            })
            .collect();
        // Each entry's group as a number, for the server-level damping.
        let mut numbers: HashMap<&str, u32> = HashMap::new();
        let groups: Vec<Option<u32>> = catalog
            .iter()
            .map(|entry| {
                let group = entry.group.as_deref()?;
                let next = u32::try_from(numbers.len()).unwrap_or(u32::MAX);
                Some(*numbers.entry(group).or_insert(next))
            })
            .collect();
        let index = Index::build(
            &documents,
            Analyzer::Full,
            &groups,
            numbers.len(),
            weights.servers,
        );
        let families = Families::build(&catalog);
        LexicalRouter {
            catalog,
            index,
            families,
            weights,
        }
    }

    /// The message and its turns as terms: the query (repeated terms merged),
    /// the user's data, each clause's verb and each step's terms.
    fn read(&self, request: &RouteRequest<'_>) -> Reading {
        let mut query: Vec<(Term, f32)> = Vec::new();
        let mut data: Vec<(Term, f32)> = Vec::new();
        let weights = (self.weights.verbs, self.weights.concepts);
        let mut verbs = Vec::new();
        let mut steps = Vec::new();
        analyze_message(
            request.message,
            &self.weights,
            &self.families.entities,
            &mut query,
            &mut data,
            &mut verbs,
            &mut steps,
        );
        let mut turn_weight = self.weights.turns;
        for turn in request.recent_turns().iter().rev() {
            let start = query.len();
            analyze(turn, Analyzer::Full, weights, &mut query);
            for (_, weight) in &mut query[start..] {
                *weight *= turn_weight;
            }
            turn_weight /= 2.0;
        }
        Reading {
            query: merge_terms(query),
            data: merge_terms(data),
            verbs,
            steps,
        }
    }

    /// What the router read in `request` and, for its first `request.limit`
    /// entries and the entries named in `also`, the terms that matched each and
    /// what each added to its score (the whole message's score, before the
    /// fusion of steps and the lift of one entity's tools by the verb).
    ///
    /// ```
    /// use toolkit::route::{Catalog, CatalogEntry, LexicalRouter, RouteRequest};
    ///
    /// let router = LexicalRouter::new(Catalog::new([
    ///     CatalogEntry::new("delete_tasks", "Delete tasks by id."),
    ///     CatalogEntry::new("get_reminders", "Get reminders, soonest first."),
    /// ]));
    /// let why = router.explain(&RouteRequest::new("remove the task"), &["get_reminders"]);
    /// assert_eq!(why.entries[0].name, "delete_tasks");
    /// assert_eq!(why.entries[0].rank, Some(1));
    /// let words: Vec<&str> = why.entries[0].matches.iter().map(|m| m.term.as_str()).collect();
    /// // The word, and the verb the message's "remove" reads as (in an order, and
    /// // with entity terms, that depend on the crate's features).
    /// assert!(words.contains(&"task") && words.contains(&"@delete"), "{words:?}");
    /// assert_eq!((why.entries[1].rank, why.entries[1].matches.len()), (None, 0));
    /// ```
    #[must_use]
    pub fn explain(&self, request: &RouteRequest<'_>, also: &[&str]) -> Explanation {
        let reading = self.read(request);
        let ranked = self.rank(request);
        let entries = self.catalog.entries();
        let mut asked: Vec<(usize, Option<usize>)> = Vec::new();
        for (rank, scored) in ranked.iter().enumerate() {
            if let Some(position) = entries
                .iter()
                .position(|entry| entry.name == scored.entry.name)
            {
                asked.push((position, Some(rank + 1)));
            }
        }
        for name in also {
            if let Some(position) = entries.iter().position(|entry| entry.name == *name)
                && !asked.iter().any(|&(known, _)| known == position)
            {
                asked.push((position, None));
            }
        }
        let mut explained: Vec<EntryExplanation> = asked
            .iter()
            .map(|&(position, rank)| EntryExplanation {
                name: entries[position].name.clone(),
                rank,
                score: 0.0,
                matches: Vec::new(),
            })
            .collect();
        for (term, weight) in reading.query.iter().chain(&reading.data) {
            let Some(&id) = self.index.terms.get(term.as_ref()) else {
                continue;
            };
            for &(document, score) in &self.index.postings[id as usize] {
                if let Some(at) = asked
                    .iter()
                    .position(|&(position, _)| position == document as usize)
                {
                    explained[at].score += weight * score;
                    explained[at].matches.push(Weighed {
                        term: term.to_string(),
                        weight: weight * score,
                    });
                }
            }
        }
        for entry in &mut explained {
            entry.matches.sort_by(|a, b| b.weight.total_cmp(&a.weight));
        }
        let mut terms: Vec<Weighed> = reading
            .query
            .iter()
            .map(|(term, weight)| Weighed {
                term: term.to_string(),
                weight: *weight,
            })
            .chain(reading.data.iter().map(|(term, weight)| Weighed {
                term: format!("{term} (data)"),
                weight: *weight,
            }))
            .collect();
        terms.sort_by(|a, b| b.weight.total_cmp(&a.weight));
        Explanation {
            terms,
            entries: explained,
        }
    }

    /// The allowed entries matching `request`, best first, at most `request.limit`.
    /// Ties keep catalog order. Empty when nothing but verbs matched (or nothing).
    #[must_use]
    pub fn rank<'a>(&'a self, request: &RouteRequest<'_>) -> Vec<Scored<'a>> {
        let entries = self.catalog.entries();
        self.rank_positions(request, request.limit)
            .into_iter()
            .map(|(position, score)| Scored {
                entry: &entries[position],
                score,
            })
            .collect()
    }

    /// [`LexicalRouter::rank`] as catalog positions and scores, at most `limit`.
    pub(crate) fn rank_positions(
        &self,
        request: &RouteRequest<'_>,
        limit: usize,
    ) -> Vec<(usize, f32)> {
        let Reading {
            query,
            data,
            verbs,
            mut steps,
        } = self.read(request);
        let entries = self.catalog.entries();
        let (mut scores, mut content) = score(entries.len(), &self.index, &query, Analyzer::Full);
        // The user's data adds to scores without making anything a candidate.
        add_scores(&self.index, &data, &mut scores, |_, _| {});
        let allowed = |document: usize| request.allows(&entries[document].name);
        self.families
            .lift(&verbs, &mut scores, &mut content, &allowed);
        // Only the steps that name something beyond a verb ("find the flight and
        // *book it*" is one step) are ranked on their own.
        steps.retain(|step| step.iter().any(|(term, _)| !lexicon::is_verb_term(term)));
        // A question restates its request more often than it adds a step ("Can
        // you search for something for me? Can you find Electropop tracks?").
        if steps.len() < 2 || request.message.contains('?') {
            return best(entries, &scores, &content, request, limit);
        }
        let mut picked = best(entries, &scores, &content, request, limit);
        // Each step's best tool, ranked on the step's words alone (and its verb).
        let mut needed: Vec<usize> = Vec::new();
        for (at, step) in steps.into_iter().enumerate() {
            let step = merge_terms(step);
            let (mut step_scores, mut step_content) =
                score(entries.len(), &self.index, &step, Analyzer::Full);
            if let Some(verb) = verbs.get(at) {
                self.families.lift(
                    std::slice::from_ref(verb),
                    &mut step_scores,
                    &mut step_content,
                    &allowed,
                );
            }
            if let Some(&(first, _)) =
                best(entries, &step_scores, &step_content, request, 1).first()
                && !needed.contains(&first)
            {
                needed.push(first);
            }
        }
        needed.truncate(limit);
        for &first in &needed {
            if picked.iter().any(|&(position, _)| position == first) {
                continue;
            }
            // It takes the place of the last pick no step needs, never one of
            // the whole message's first three, and comes after its picks.
            if picked.len() >= limit {
                let Some(last) = picked
                    .iter()
                    .skip(KEPT_PICKS)
                    .rposition(|(position, _)| !needed.contains(position))
                else {
                    continue;
                };
                picked.remove(KEPT_PICKS + last);
            }
            picked.push((first, scores[first]));
        }
        picked
    }
}

/// How many of the whole message's first picks a step's best tool never
/// displaces: a step adds to the request, the message's own best stay.
const KEPT_PICKS: usize = 3;

/// The same terms with the weights of repeated ones summed, in first-seen order:
/// a query's cost is then bounded by its distinct terms, whatever its length.
fn merge_terms(terms: Vec<(Term, f32)>) -> Vec<(Term, f32)> {
    let mut positions: HashMap<Term, usize> = HashMap::with_capacity(terms.len());
    let mut out: Vec<(Term, f32)> = Vec::with_capacity(terms.len());
    for (term, weight) in terms {
        match positions.get(&term) {
            Some(&at) => out[at].1 += weight,
            None => {
                positions.insert(term.clone(), out.len());
                out.push((term, weight));
            }
        }
    }
    out
}

/// Each entry's score for `query`, and whether it shares a word with it that is
/// not only a verb class.
fn score(
    count: usize,
    index: &Index,
    query: &[(Term, f32)],
    analyzer: Analyzer,
) -> (Vec<f32>, Vec<bool>) {
    let mut scores = vec![0.0_f32; count];
    let mut content = vec![false; count];
    add_scores(index, query, &mut scores, |slot, term| {
        content[slot] |= analyzer == Analyzer::Plain || !lexicon::is_verb_term(term);
    });
    (scores, content)
}

/// Adds each entry's score for `query` to `scores`, telling `matched` of each
/// entry a term of the query matched.
fn add_scores(
    index: &Index,
    query: &[(Term, f32)],
    scores: &mut [f32],
    mut matched: impl FnMut(usize, &str),
) {
    for (term, weight) in query {
        let Some(&id) = index.terms.get(term.as_ref()) else {
            continue;
        };
        for &(document, score) in &index.postings[id as usize] {
            let slot = document as usize;
            scores[slot] += weight * score;
            matched(slot, term);
        }
    }
}

/// The allowed entries with content, best first, at most `request.limit`.
fn top<'a>(
    entries: &'a [CatalogEntry],
    scores: &[f32],
    content: &[bool],
    request: &RouteRequest<'_>,
) -> Vec<Scored<'a>> {
    best(entries, scores, content, request, request.limit)
        .into_iter()
        .map(|(document, score)| Scored {
            entry: &entries[document],
            score,
        })
        .collect()
}

/// The positions and scores of the allowed entries with content, best first
/// (ties in catalog order), at most `limit`.
fn best(
    entries: &[CatalogEntry],
    scores: &[f32],
    content: &[bool],
    request: &RouteRequest<'_>,
    limit: usize,
) -> Vec<(usize, f32)> {
    let mut ranked: Vec<(usize, f32)> = (0..entries.len())
        .filter(|&document| content[document] && request.allows(&entries[document].name))
        .map(|document| (document, scores[document]))
        .collect();
    // Best first, ties in catalog order; only the first `limit` need sorting.
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if limit == 0 {
        return Vec::new();
    }
    if ranked.len() > limit {
        ranked.select_nth_unstable_by(limit - 1, order);
        ranked.truncate(limit);
    }
    ranked.sort_by(order);
    ranked
}

fn routing(ranked: Vec<Scored<'_>>) -> Routing<'_> {
    if ranked.is_empty() {
        Routing::Abstained
    } else {
        Routing::Picked(ranked.into_iter().map(|scored| scored.entry).collect())
    }
}

impl Router for LexicalRouter {
    fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn route<'a>(&'a self, request: &'a RouteRequest<'a>) -> RouteFuture<'a> {
        let answer = routing(self.rank(request));
        Box::pin(std::future::ready(Ok(answer)))
    }

    fn explain(&self, request: &RouteRequest<'_>, also: &[&str]) -> Option<Explanation> {
        Some(LexicalRouter::explain(self, request, also))
    }
}

/// Plain BM25 (k1 = 1.2, b = 0.75) over each entry's name and description, split
/// into lowercase words on anything but letters and digits, and over the message
/// alone: no stemming, stop words, verbs, name splitting or other fields. The
/// baseline [`LexicalRouter`] is measured against (BENCHMARKS.md); use it to compare
/// on your own catalog.
#[derive(Debug)]
pub struct PlainBm25 {
    catalog: Catalog,
    index: Index,
}

impl PlainBm25 {
    /// Indexes `catalog`.
    #[must_use]
    pub fn new(catalog: Catalog) -> Self {
        let documents: Vec<Vec<Field<'_>>> = catalog
            .iter()
            .map(|entry| {
                vec![Field {
                    text: vec![&entry.name, &entry.description],
                    weight: 1.0,
                    b: 0.75,
                }]
            })
            .collect();
        let index = Index::build(&documents, Analyzer::Plain, &[], 0, 0.0);
        PlainBm25 { catalog, index }
    }

    /// The allowed entries matching the message, best first, at most
    /// `request.limit`; earlier turns are ignored.
    #[must_use]
    pub fn rank<'a>(&'a self, request: &RouteRequest<'_>) -> Vec<Scored<'a>> {
        let mut query = Vec::new();
        analyze(request.message, Analyzer::Plain, (0.0, 0.0), &mut query);
        let entries = self.catalog.entries();
        let (scores, content) = score(entries.len(), &self.index, &query, Analyzer::Plain);
        top(entries, &scores, &content, request)
    }
}

impl Router for PlainBm25 {
    fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn route<'a>(&'a self, request: &'a RouteRequest<'a>) -> RouteFuture<'a> {
        let answer = routing(self.rank(request));
        Box::pin(std::future::ready(Ok(answer)))
    }
}
