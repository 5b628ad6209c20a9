//! Reading a message as the lexical router does: clause by clause, each word with
//! its stem, concepts, verb classes and role (the imperative's verb, a noun spelled
//! like a verb, a question word, the user's data).

use super::lexicon::{Lookup, look_up, replace_phrases, stem, verb_classes_stemmed, words};

/// How a word of a message is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The verb that opens its clause (the imperative: `remove the page`).
    Leading,
    /// A verb-like word in a clause without a leading verb (a question, a
    /// statement): its verb classes count.
    Verb,
    /// A verb-like word in a clause that already has its verb (`add milk to my
    /// *list*`): a noun or a detail.
    Secondary,
    /// A word after a determiner (`my list`, `the link`), or any other word.
    Other,
    /// The particle of a split verb (`take the item *out*`), read with its verb.
    Particle,
    /// The word opening a question that no verb opens ("*what*'s in the menu?",
    /// "*which* articles are unpublished?"): it asks to see, so among one
    /// entity's tools it chooses as `get` would (as `search` when it asks about
    /// one thing: "who is Marta", "anyone called Priya"), without adding the
    /// verb's words to the query.
    Asking,
}

/// One word of a message as the router reads it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MessageWord {
    /// The word, lowercase, phrases replaced (`get rid of` -> `delete`).
    pub(crate) word: String,
    /// Its [`stem`], computed once while the message is read.
    pub(crate) stem: String,
    /// Its concept terms (`todo` -> `#task`).
    pub(crate) concepts: &'static [&'static str],
    /// Whether it is a stop word.
    pub(crate) stop: bool,
    /// The verb classes of the word; for a verb split from its particle (`take the
    /// item out`), the whole verb's (`delete`).
    pub(crate) verbs: &'static [(&'static str, f32)],
    /// How it is read.
    pub(crate) role: Role,
    /// In a prepositional phrase after its clause's verb: the thing acted on is the
    /// verb's object (`delete the section from the page`).
    pub(crate) in_phrase: bool,
    /// The user's data rather than words about the task: a short quotation, the
    /// name after "called", a path, a web address's parts. Read without verb
    /// classes or concepts.
    pub(crate) data: bool,
}

/// Words that may come before a clause's verb without being it: politeness,
/// modals, "I want to", "let's".
const BEFORE_VERB: &[&str] = &[
    "please", "pls", "can", "could", "would", "will", "you", "i", "we", "want", "wanna", "need",
    "like", "d", "ll", "to", "let", "lets", "s", "us", "go", "ahead", "just", "also", "now",
    "then", "hey", "hi", "ok", "okay", "so", "quickly", "kindly", "and", "plus", "first", "next",
    "finally", "actually",
];

/// Words after which a word spelled like a verb is a noun (`my list`, `the link`,
/// `a post`).
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "my", "your", "our", "his", "her", "their", "its", "this", "that", "these",
    "those", "every", "each", "any", "some", "no", "todo",
];

/// Forms of "be", after which a verb-like word in a question is a state.
const BE: &[&str] = &["is", "are", "was", "were", "be", "been", "being", "am", "s"];

/// Prepositions that open a phrase beside the verb's object. `of` is not one:
/// "the title of the page" names what is acted on.
const PREPOSITIONS: &[&str] = &[
    "on", "onto", "in", "into", "to", "from", "for", "about", "at", "with", "under", "above",
    "below", "inside", "within", "by", "near", "through", "after", "before", "without",
];

/// Words joining two clauses (or two objects of one verb).
const JOINERS: &[&str] = &["and", "then", "also", "plus", "but"];

/// Verbs whose particle may come after their object (`take the item out`,
/// `tick the chore off`), with the vocabulary verb the pair means.
const SEPARABLE: &[(&str, &str, &str)] = &[
    ("take", "out", "delete"),
    ("get", "off", "delete"),
    ("get", "out", "delete"),
    ("take", "off", "delete"),
    ("take", "away", "delete"),
    ("throw", "out", "delete"),
    ("throw", "away", "delete"),
    ("cross", "off", "update"),
    ("tick", "off", "update"),
    ("check", "off", "update"),
    ("write", "down", "create"),
    ("note", "down", "create"),
    ("pull", "up", "get"),
    ("look", "up", "search"),
    ("put", "live", "publish"),
    ("make", "live", "publish"),
];

/// Reads a message clause by clause (split at `,;.!?:` and at `and`/`then` when a
/// verb follows). A clause that opens with a verb (after "please", "can you", "I
/// want to"...) is an imperative: that verb is its verb, any other word spelled
/// like a verb in it is [`Role::Secondary`] ("add milk to my *list*"), and words
/// in a prepositional phrase after the verb are marked. In a clause without one (a
/// question, a statement), a verb-like word is a [`Role::Verb`] unless a
/// determiner comes before it ("what's on *my list*").
pub(crate) fn read_message(text: &str) -> Vec<MessageWord> {
    let mut out: Vec<MessageWord> = Vec::new();
    let mut read = Vec::new();
    // The message's first word as written.
    let mut message_opening: Option<String> = None;
    // Where in `out` the verb of a statement no verb opens is, and whether an
    // object or the sentence's end follows it.
    let mut statement_verb: Option<(usize, bool)> = None;
    for sentence in sentences(text) {
        let question = sentence.question;
        let SentenceWords {
            words,
            data,
            opening,
        } = SentenceWords::read(&sentence.pieces);
        // What a later clause spares is not acted on: "delete the reminder but
        // *keep the task*", "switch project; *don't touch my tasks*".
        let spared_from = (0..words.len()).find(|&at| {
            if at == 0 {
                // A later sentence that opens with "keep" may be an instruction
                // ("Keep the transaction private."); one that opens with a
                // negation spares.
                !out.is_empty() && ["don", "dont", "not"].contains(&words[at].as_str())
            } else {
                words[at - 1] == "but" && SPARING.contains(&words[at].as_str())
            }
        });
        // Each word is stemmed and looked up in the word tables once, here.
        let stems: Vec<String> = words.iter().map(|word| stem(word)).collect();
        let lookups: Vec<Lookup> = words
            .iter()
            .zip(&stems)
            .zip(&data)
            .enumerate()
            .map(|(at, ((word, stemmed), &data))| {
                let lookup = look_up(word, stemmed);
                if spared_from.is_some_and(|from| at >= from) {
                    Lookup {
                        verbs: &[],
                        concepts: &[],
                        stop: true,
                    }
                } else if data {
                    // A name or a quoted value says what to act on more than which
                    // tool: "delete the 'Blog' link", "a company called Create".
                    // A verb in it ("the 'Search' link", "the FAQ 'How do I
                    // delete my account?'") would match every tool named for it.
                    Lookup {
                        verbs: &[],
                        concepts: &[],
                        stop: lookup.stop || !lookup.verbs.is_empty(),
                    }
                } else {
                    lookup
                }
            })
            .collect();
        let classes: Vec<&'static [(&'static str, f32)]> =
            lookups.iter().map(|lookup| lookup.verbs).collect();
        read.clear();
        read_clauses(&words, &classes, question, &mut read);
        if message_opening.is_none() {
            message_opening = opening;
        }
        for (at, (_, role, _)) in read.iter().enumerate() {
            if *role != Role::Verb {
                continue;
            }
            let acts = words.get(at + 1).is_none_or(|next| {
                DETERMINERS.contains(&next.as_str())
                    || ["it", "them", "him", "her"].contains(&next.as_str())
            });
            if acts && statement_verb.is_none_or(|(_, acted)| !acted) {
                statement_verb = Some((out.len() + at, true));
            } else if statement_verb.is_none() {
                statement_verb = Some((out.len() + at, false));
            }
        }
        // `read_clauses` reads every word once, in order: the words and stems move
        // into the answer without copies.
        out.extend(
            words
                .into_iter()
                .zip(stems)
                .zip(lookups)
                .zip(read.drain(..))
                .zip(data)
                .map(
                    |((((word, stem), lookup), (verbs, role, in_phrase)), data)| MessageWord {
                        word,
                        stem,
                        concepts: lookup.concepts,
                        stop: lookup.stop,
                        verbs,
                        role,
                        in_phrase,
                        data,
                    },
                ),
        );
    }
    settle_roles(
        &mut out,
        &message_opening.unwrap_or_default(),
        statement_verb,
    );
    out
}

/// Gives a message no verb opens its verb once all its sentences are read.
/// `opening` is its first word as written; `statement_verb` is where the verb
/// of a statement is, and whether an object or its sentence's end follows it.
fn settle_roles(out: &mut [MessageWord], opening: &str, statement_verb: Option<(usize, bool)>) {
    if out.iter().any(|word| word.role == Role::Leading) {
        return;
    }
    if !QUESTION_WORDS.contains(&opening) {
        // A statement no verb opens is told by its first verb-like word that
        // an object or the sentence's end follows ("the item is done, *tick*
        // it"; "the Press link in the menu *can go*"), else its first one: a
        // subject spelled like a verb ("the Press *link* in") is followed by
        // neither.
        if let Some((at, _)) = statement_verb {
            out[at].role = Role::Leading;
        }
        return;
    }
    // A question no verb opens asks to see: "what's in the menu?", "which
    // articles are unpublished", "who is Marta". "Can you ..." is a request.
    // It asks for one thing ("did the bank write *about* the mortgage", "anyone
    // *called* Priya", "who is Marta") as a search does, for all of them ("who
    // are *all* the contacts") as a get does. Its other verb-like words name
    // states ("any reminders *set* for the weekend"), not what to do.
    let all = out
        .iter()
        .any(|word| ["all", "every", "everything", "everyone"].contains(&word.word.as_str()));
    let one = out.iter().any(|word| {
        word.data || ["about", "from", "regarding", "called", "named"].contains(&word.word.as_str())
    });
    let verbs: &'static [(&'static str, f32)] = if !all && (one || opening == "who") {
        &[("@search", 1.0), ("@get", 0.7)]
    } else {
        &[("@get", 1.0), ("@search", 0.7)]
    };
    for word in out.iter_mut().filter(|word| word.role == Role::Verb) {
        word.role = Role::Other;
    }
    if let Some(first) = out.first_mut() {
        first.verbs = verbs;
        first.role = Role::Asking;
    }
}

/// Words opening a clause that spares what it names (after "but", or as a
/// later sentence): "but keep the task", "; don't touch my tasks", ", not the
/// emails".
const SPARING: &[&str] = &["keep", "leave", "except", "not", "don", "dont"];

/// Words that open a question asking to see something, with or without its `?`:
/// "what's on the menu".
const QUESTION_WORDS: &[&str] = &[
    "what", "whats", "which", "who", "where", "when", "how", "any", "anything", "is", "are", "do",
    "does", "did", "have", "has",
];

/// Words after which the next word is a name: "a page called Create".
const NAMING: &[&str] = &["called", "named", "titled", "labelled", "labeled"];

/// The most words a quotation has to be read as a name or a value: "the 'Call to
/// action' section", not a pasted paragraph.
const MAX_NAME_WORDS: usize = 5;

/// A sentence's words, each marked as the user's data or not, with the
/// sentence's first word as written (before phrases replace it: "who is").
#[derive(Default)]
struct SentenceWords {
    words: Vec<String>,
    data: Vec<bool>,
    opening: Option<String>,
}

impl SentenceWords {
    /// Reads a sentence's pieces. A short quotation is a name or a value, a
    /// long one prose. A web address is read as the word `url`, its parts
    /// (`blog`, `example`) as data: where to go, not what to do; a path on a site
    /// (`/about`, `/summer-menu`) names a page, its words data too. The word
    /// after "called" is a name.
    fn read(pieces: &[(&str, bool)]) -> Self {
        let mut read = SentenceWords::default();
        for &(piece, quoted) in pieces {
            if quoted {
                let words = words(piece);
                let name = words.len() <= MAX_NAME_WORDS;
                read.data.extend(std::iter::repeat_n(name, words.len()));
                read.words.extend(words);
            } else if !piece.contains(['.', '/']) {
                read.prose(piece);
            } else {
                read.prose_with_addresses(piece);
            }
        }
        for at in 1..read.words.len() {
            if NAMING.contains(&read.words[at - 1].as_str()) {
                read.data[at] = true;
            }
        }
        read
    }

    /// Prose that may hold web addresses and paths.
    fn prose_with_addresses(&mut self, piece: &str) {
        let (mut from, mut at) = (0, 0);
        for token in piece.split_inclusive(char::is_whitespace) {
            let address = token.trim_end_matches(|c: char| {
                c.is_whitespace() || matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | ')')
            });
            let path = address
                .strip_prefix('/')
                .filter(|path| path.starts_with(|c: char| c.is_alphanumeric()));
            if path.is_some() || is_address(address) {
                self.prose(&piece[from..at]);
                match path {
                    Some(path) => self.user_data(path),
                    None => {
                        self.words.push("url".to_owned());
                        self.data.push(false);
                        self.user_data(address);
                    }
                }
                from = at + address.len();
            }
            at += token.len();
        }
        self.prose(&piece[from..]);
    }

    /// Prose: its words, phrases replaced; the first also noted as written.
    fn prose(&mut self, text: &str) {
        let mut words = words(text);
        if self.words.is_empty() && self.opening.is_none() {
            self.opening = words.first().cloned();
        }
        replace_phrases(&mut words);
        self.data.extend(std::iter::repeat_n(false, words.len()));
        self.words.extend(words);
    }

    /// The user's data: its words, as written.
    fn user_data(&mut self, text: &str) {
        let words = words(text);
        self.data.extend(std::iter::repeat_n(true, words.len()));
        self.words.extend(words);
    }
}

/// One sentence of a message: its pieces of text, each quoted or not, and whether
/// it asks a question.
struct Sentence<'t> {
    pieces: Vec<(&'t str, bool)>,
    question: bool,
}

/// Splits a message into sentences at `,;.!?:` and line ends, never inside a
/// quotation or a web address (`blog.example.net/why`), and each sentence into
/// quoted and unquoted pieces. A quotation opens with `"`, `“` or `‘`, or with
/// `'` after a space or the start and before a letter or digit (so "don't" and
/// "Mia's" stay words), and ends at its closing mark; one never closed is prose.
/// A message that is one whole quotation is read as prose.
fn sentences(text: &str) -> Vec<Sentence<'_>> {
    let mut out = Vec::new();
    let mut pieces: Vec<(&str, bool)> = Vec::new();
    let mut start = 0;
    // The closing mark of the open quotation, if one is open.
    let mut closing: Option<char> = None;
    let mut previous = ' ';
    // Where the current whitespace-free word starts, and, once a `.` or `:` in it
    // asked, where it ends and whether it is a web address: each word is looked
    // at once, so the work stays linear in the message.
    let mut word_start = 0;
    let mut word: Option<(usize, bool)> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map_or(' ', |&(_, next)| next);
        if c.is_whitespace() {
            word_start = at + c.len_utf8();
        }
        match closing {
            Some(close) => {
                let closes = c == close
                    && (close != '\'' || !next.is_alphanumeric())
                    && (close != '’' || !next.is_alphanumeric());
                if closes {
                    pieces.push((&text[start..at], true));
                    start = at + c.len_utf8();
                    closing = None;
                }
            }
            None => {
                let opens = match c {
                    '"' => Some('"'),
                    '“' => Some('”'),
                    '‘' => Some('’'),
                    '\'' if !previous.is_alphanumeric() && next.is_alphanumeric() => Some('\''),
                    _ => None,
                };
                if let Some(close) = opens {
                    pieces.push((&text[start..at], false));
                    start = at + c.len_utf8();
                    closing = Some(close);
                } else if matches!(c, ',' | ';' | '.' | '!' | '?' | ':' | '\n')
                    && !(matches!(c, '.' | ':')
                        && previous.is_alphanumeric()
                        && (next.is_alphanumeric() || next == '/')
                        && {
                            if word.is_none_or(|(end, _)| at >= end) {
                                let end = text[at..]
                                    .find(char::is_whitespace)
                                    .map_or(text.len(), |space| at + space);
                                word = Some((end, holds_address(&text[word_start..end])));
                            }
                            word.is_some_and(|(_, address)| address)
                        })
                {
                    pieces.push((&text[start..at + c.len_utf8()], false));
                    start = at + c.len_utf8();
                    out.push(Sentence {
                        pieces: std::mem::take(&mut pieces),
                        question: c == '?',
                    });
                }
            }
        }
        previous = c;
    }
    // A quotation never closed ("songs from '19") was not one.
    pieces.push((&text[start..], false));
    let question = text.trim_end().ends_with('?');
    out.push(Sentence { pieces, question });
    let has_prose = out
        .iter()
        .flat_map(|sentence| &sentence.pieces)
        .any(|&(piece, quoted)| !quoted && !piece.trim().is_empty());
    if !has_prose {
        // Nothing but a quotation: the quotation is the message.
        for sentence in &mut out {
            for piece in &mut sentence.pieces {
                piece.1 = false;
            }
        }
    }
    out
}

/// Whether a whitespace-free token is a web address: `https://…`, `www.…`, or
/// a host with a top-level domain of two or more letters, with or without a path
/// (`blog.example.net/why`, `shop.test/v1/stock`).
fn is_address(token: &str) -> bool {
    if token.contains("://") || token.starts_with("www.") {
        return true;
    }
    let (host, path) = token.split_once('/').unwrap_or((token, ""));
    let Some((name, domain)) = host.rsplit_once('.') else {
        return false;
    };
    // Without a path, a file's name (`report.pdf`) is not an address.
    let known = || {
        [
            "com", "net", "org", "io", "dev", "app", "co", "uk", "de", "fr", "eu", "us", "ai",
            "gov", "edu", "info", "me", "test", "example",
        ]
        .contains(&domain)
    };
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-'))
        && domain.len() >= 2
        && domain.chars().all(|c| c.is_ascii_lowercase())
        && (!path.is_empty() || token.ends_with('/') || known())
}

/// Whether a whitespace-free word holds a web address, so that its `.` and `:`
/// do not end a sentence: it holds `/` (`shop.test/v1`, `https://x`) or ends in a
/// top-level domain of two or more letters (`example.net`), not a sentence's end
/// ("done.Next" aside).
fn holds_address(word: &str) -> bool {
    let word = word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    if word.contains('/') {
        return true;
    }
    let Some((_, domain)) = word.rsplit_once('.') else {
        return false;
    };
    domain.len() >= 2 && domain.chars().all(|c| c.is_ascii_lowercase())
}

/// How [`read_clauses`] reads one word: its verb classes, role, and whether it
/// is in a prepositional phrase.
type Reading = (&'static [(&'static str, f32)], Role, bool);

/// Reads one sentence's `words` (with their verb `classes`), pushing one
/// [`Reading`] per word, in order. In a `question`, a verb-like word right after
/// a form of "be" names a state, not what to do ("which jobs are *set up*?"), and
/// so does a past form ("can you tell what I *noted*?"). [`read_message`] then
/// reads a question that a question word opens as asking to see.
fn read_clauses(
    words: &[String],
    classes: &[&'static [(&'static str, f32)]],
    question: bool,
    out: &mut Vec<Reading>,
) {
    // Whether the current clause opened with a verb.
    let mut has_verb = false;
    let mut in_phrase = false;
    // Whether each word is a particle already read as part of a split verb.
    let mut particles = vec![false; words.len()];
    // Whether a new clause may start here (the start, or after a joiner).
    let mut clause_start = true;
    // Before here, a clause start is known not to open with a verb: it would skip
    // the same words ("and and and ...") to the same non-verb, so it is not
    // looked at again and the work stays linear.
    let mut no_verb_before = 0;
    let mut i = 0;
    while i < words.len() {
        if clause_start && i >= no_verb_before {
            clause_start = false;
            // Skip what may come before a verb; if a verb follows, a clause starts.
            let mut j = i;
            while j < words.len() && BEFORE_VERB.contains(&words[j].as_str()) {
                j += 1;
            }
            let split = (j < words.len()).then(|| separable(words, j)).flatten();
            let opens = split.is_some() || (j < words.len() && !classes[j].is_empty());
            if opens {
                out.extend(std::iter::repeat_n((&[][..], Role::Other, false), j - i));
                let verbs = match split {
                    Some((particle, verbs)) => {
                        particles[particle] = true;
                        verbs
                    }
                    None => classes[j],
                };
                out.push((verbs, Role::Leading, false));
                has_verb = true;
                in_phrase = false;
                i = j + 1;
                continue;
            }
            no_verb_before = j + 1;
        }
        clause_start = false;
        let word = words[i].as_str();
        if JOINERS.contains(&word) {
            // A second object of the same verb is an object again.
            in_phrase = false;
            clause_start = true;
        } else if has_verb && PREPOSITIONS.contains(&word) {
            in_phrase = true;
        }
        let verbs = classes[i];
        let role = if particles[i] {
            Role::Particle
        } else if verbs.is_empty()
            || (i > 0 && DETERMINERS.contains(&words[i - 1].as_str()))
            || (question && i > 0 && BE.contains(&words[i - 1].as_str()))
            || (question && word.ends_with("ed"))
        {
            Role::Other
        } else if has_verb {
            Role::Secondary
        } else {
            Role::Verb
        };
        out.push((verbs, role, in_phrase));
        i += 1;
    }
}

/// The particle's position and the classes of a verb at `at` whose particle comes
/// later in its clause (`take the item out`).
fn separable(words: &[String], at: usize) -> Option<(usize, &'static [(&'static str, f32)])> {
    let verb = words[at].as_str();
    SEPARABLE
        .iter()
        .filter(|(first, _, _)| *first == verb)
        .find_map(|&(_, particle, means)| {
            words[at + 1..]
                .iter()
                .take_while(|word| !JOINERS.contains(&word.as_str()))
                .position(|word| word == particle)
                .map(|offset| (at + 1 + offset, verb_classes_stemmed(means, means)))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_read_with_each_word_s_stem_and_role() {
        let read = read_message("removing the tasks, which jobs are set up?");
        let seen: Vec<(&str, &str, Role)> = read
            .iter()
            .map(|word| (word.word.as_str(), word.stem.as_str(), word.role))
            .collect();
        assert_eq!(
            seen,
            [
                ("removing", "remov", Role::Leading),
                ("the", "the", Role::Other),
                ("tasks", "task", Role::Other),
                ("which", "which", Role::Other),
                ("jobs", "job", Role::Other),
                ("are", "are", Role::Other),
                // "set up" is read as one word; after "are" in a question, a state.
                ("create", "creat", Role::Other),
            ]
        );
        // The same verb opening a statement is its verb.
        assert_eq!(read_message("set up a job")[0].role, Role::Leading);
    }

    #[test]
    fn quotations_names_and_web_addresses_are_data() {
        let data = |message: &str| -> Vec<(String, bool)> {
            read_message(message)
                .into_iter()
                .map(|word| (word.word, word.data))
                .collect()
        };
        let pairs = |list: &[(&str, bool)]| -> Vec<(String, bool)> {
            list.iter()
                .map(|&(word, data)| (word.to_owned(), data))
                .collect()
        };
        // Apostrophes in words are not quotation marks.
        assert_eq!(
            data("delete Mia's 'Blog' link"),
            pairs(&[
                ("delete", false),
                ("mia", false),
                ("s", false),
                ("blog", true),
                ("link", false)
            ])
        );
        assert_eq!(
            data("the page called Create"),
            pairs(&[
                ("the", false),
                ("page", false),
                ("called", false),
                ("create", true)
            ])
        );
        // A web address does not end a sentence at its dots; its words are data.
        assert_eq!(
            data("read blog.example.net/why please"),
            pairs(&[
                ("read", false),
                ("url", false),
                ("blog", true),
                ("example", true),
                ("net", true),
                ("why", true),
                ("please", false),
            ])
        );
        // A quotation never closed, a long one, or the whole message is prose.
        assert!(
            data("songs from '19 on the album")
                .iter()
                .all(|(_, data)| !data)
        );
        assert!(
            data("reply 'thanks so much, I will be there on time'")
                .iter()
                .all(|(_, data)| !data)
        );
        assert!(data("\"list my tasks\"").iter().all(|(_, data)| !data));
        assert!(is_address("https://x.test"));
        assert!(is_address("shop.test/v1/stock"));
        assert!(is_address("example.com"));
        assert!(!is_address("report.pdf"));
        assert!(!is_address("e.g"));
    }

    #[test]
    fn a_clause_that_spares_is_dropped_and_a_question_asks() {
        let read = read_message("delete the reminder but keep the task");
        let kept: Vec<&str> = read
            .iter()
            .filter(|word| !word.stop)
            .map(|word| word.word.as_str())
            .collect();
        assert_eq!(kept, ["delete", "reminder"]);
        // A later sentence that opens with "keep" is an instruction.
        let read = read_message("send it. Keep it private");
        assert!(read.iter().any(|word| word.word == "private" && !word.stop));
        let first = &read_message("which reminders are set for Friday?")[0];
        assert_eq!(
            (first.role, first.verbs),
            (Role::Asking, &[("@get", 1.0), ("@search", 0.7)][..])
        );
        // A web address in the question does not hide its opening word.
        assert_eq!(
            read_message("what is at example.com/menu?")[0].role,
            Role::Asking
        );
        let first = &read_message("who is Marta")[0];
        assert_eq!(first.verbs, &[("@search", 1.0), ("@get", 0.7)][..]);
        // "set" names a state there, not what to do.
        assert!(
            read_message("which reminders are set for Friday?")
                .iter()
                .all(|word| word.role != Role::Verb && word.role != Role::Leading)
        );
    }
}
