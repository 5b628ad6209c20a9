//! The lexicon of the lexical router: splitting text into words, stop words,
//! light stemming, the verb classes stray verbs map to, concepts and phrases.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Splits `text` into lowercase ASCII words: on anything that is not a letter or a
/// digit, between a lowercase letter and an uppercase one (`getNavItem` -> get, nav,
/// item), before the last capital of a capital run followed by a lowercase letter
/// (`HTTPServer` -> http, server), and between letters and digits.
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut current, &mut out);
            continue;
        }
        if let Some(&previous) = i.checked_sub(1).and_then(|p| chars.get(p)) {
            let next = chars.get(i + 1).copied();
            let boundary = (previous.is_lowercase() && c.is_uppercase())
                || (previous.is_uppercase()
                    && c.is_uppercase()
                    && next.is_some_and(char::is_lowercase)
                    && !plural_acronym(&chars[i + 1..]))
                || (previous.is_alphabetic() && c.is_numeric())
                || (previous.is_numeric() && c.is_alphabetic());
            if boundary {
                flush(&mut current, &mut out);
            }
        }
        current.extend(c.to_lowercase());
    }
    flush(&mut current, &mut out);
    out
}

/// `s` then no more letters: the plural of an acronym (`FAQs`, `URLs`, `IDs`).
fn plural_acronym(rest: &[char]) -> bool {
    rest.first() == Some(&'s') && !rest.get(1).is_some_and(|c| c.is_alphabetic())
}

fn flush(current: &mut String, out: &mut Vec<String>) {
    if !current.is_empty() {
        out.push(std::mem::take(current));
    }
}

/// Words that carry no meaning for picking a tool.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "let",
    "lets",
    "me",
    "might",
    "mine",
    "my",
    "myself",
    "need",
    "now",
    "of",
    "on",
    "one",
    "or",
    "our",
    "ours",
    "please",
    "pls",
    "s",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "too",
    "up",
    "us",
    "very",
    "want",
    "wanna",
    "was",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "t",
    "d",
    "ll",
    "m",
    "re",
    "ve",
    "hey",
    "hi",
    "thanks",
    "thank",
    "ok",
    "okay",
    "again",
    "given",
    "using",
    "use",
    "based",
    "specified",
    "specific",
    "provided",
    "e",
    "g",
    "etc",
    "via",
    "per",
    "than",
    "only",
    "more",
    "most",
    "such",
    "other",
    "each",
    "every",
    "same",
    "own",
];

/// Whether `word` (lowercase, unstemmed) is a stop word.
pub(crate) fn is_stop_word(word: &str) -> bool {
    static SET: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
        .contains(word)
}

/// A light English stemmer: plurals, `-ing`, `-ed`, `-er` and a final `e`, so that
/// task/tasks, memory/memories, remind/reminder/reminders and schedule/scheduled
/// meet. Deterministic and allocation-light; not a full Porter stemmer on purpose
/// (over-stemming merges tool names that differ).
pub(crate) fn stem(word: &str) -> String {
    let mut w = word.to_owned();
    if w.len() <= 3 || !w.bytes().all(|b| b.is_ascii_lowercase()) {
        return w;
    }
    // Plurals.
    if let Some(base) = w.strip_suffix("ies").filter(|b| b.len() >= 2) {
        w = format!("{base}y");
    } else if ["sses", "ches", "shes", "xes"]
        .iter()
        .any(|ending| w.ends_with(ending))
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    // Verb endings.
    if let Some(base) = w
        .strip_suffix("ing")
        .or_else(|| w.strip_suffix("ed").filter(|_| !w.ends_with("eed")))
        .filter(|b| b.len() >= 3 && has_vowel(b))
    {
        w = verb_base(base);
    } else if let Some(base) = w.strip_suffix("er").filter(|b| b.len() >= 5) {
        w = undouble(base);
    }
    if w.len() > 4 && w.ends_with('e') {
        w.pop();
    }
    if w.len() > 3 && w.ends_with('y') {
        // memory / memori(es) -> memori; category / categories -> categori
        w.pop();
        w.push('i');
    }
    w
}

fn has_vowel(text: &str) -> bool {
    text.bytes().any(|b| b"aeiouy".contains(&b))
}

/// What is left of a verb once `-ing` or `-ed` is cut: the doubled consonant
/// undone (`runn` -> `run`), or the `e` the ending swallowed put back after one
/// short syllable (`not(ed)` -> `note`, `nam(ing)` -> `name`, `clos(ed)` ->
/// `close`), so that each form meets its plain verb's stem. `open(ed)` has two
/// syllables and `fix(ed)`, `play(ed)` end in `x` or `y`: they stay.
fn verb_base(base: &str) -> String {
    let undoubled = undouble(base);
    if undoubled.len() < base.len() {
        return undoubled;
    }
    let bytes = base.as_bytes();
    let vowel = |b: u8| b"aeiou".contains(&b);
    let n = bytes.len();
    let one_syllable = bytes
        .iter()
        .skip_while(|&&b| !vowel(b))
        .skip_while(|&&b| vowel(b))
        .all(|&b| !vowel(b) && b != b'y');
    let short = n >= 3
        && !vowel(bytes[n - 3])
        && vowel(bytes[n - 2])
        && !vowel(bytes[n - 1])
        && !b"wxy".contains(&bytes[n - 1]);
    if one_syllable && short {
        format!("{base}e")
    } else {
        base.to_owned()
    }
}

/// `runn` -> `run`, `stopp` -> `stop`; `ll`, `ss`, `zz` stay (`fill`, `pass`), and
/// so does a double letter that would leave two (`add`).
fn undouble(base: &str) -> String {
    let bytes = base.as_bytes();
    let n = bytes.len();
    if n >= 4 && bytes[n - 1] == bytes[n - 2] && !b"lsz".contains(&bytes[n - 1]) {
        base[..n - 1].to_owned()
    } else {
        base.to_owned()
    }
}

/// The verb classes of toolkit's default vocabulary and the stray verbs that mean
/// the same, as `(class, [(word, weight)])`. Weights below 1 mark a verb that
/// leans to the class without always meaning it (`find` is mostly search, partly
/// get).
const VERB_CLASSES: &[(&str, &[(&str, f32)])] = &[
    (
        "get",
        &[
            ("get", 1.0),
            ("list", 1.0),
            ("fetch", 1.0),
            ("show", 1.0),
            ("retrieve", 1.0),
            ("read", 1.0),
            ("view", 1.0),
            ("display", 1.0),
            ("see", 1.0),
            ("load", 1.0),
            ("obtain", 1.0),
            ("return", 0.5),
            ("check", 0.7),
            ("open", 0.7),
            ("give", 0.5),
            ("tell", 0.5),
            ("find", 0.5),
            ("lookup", 0.5),
            ("look", 0.5),
            ("browse", 0.7),
            ("query", 0.5),
            ("download", 0.5),
            ("grab", 0.7),
            ("print", 0.5),
            ("count", 0.5),
            ("calculate", 0.3),
            ("compute", 0.3),
        ],
    ),
    (
        "search",
        &[
            ("search", 1.0),
            ("find", 1.0),
            ("lookup", 1.0),
            ("look", 1.0),
            ("query", 1.0),
            ("seek", 1.0),
            ("locate", 1.0),
            ("hunt", 1.0),
            ("google", 1.0),
            ("scan", 0.7),
            ("browse", 0.7),
            ("filter", 0.5),
            ("match", 0.5),
            ("list", 0.3),
            ("show", 0.3),
            ("fetch", 0.3),
        ],
    ),
    (
        "create",
        &[
            ("create", 1.0),
            ("add", 1.0),
            ("new", 1.0),
            ("make", 1.0),
            ("write", 0.7),
            ("insert", 1.0),
            ("register", 0.7),
            ("compose", 0.7),
            ("draft", 0.7),
            ("save", 0.7),
            ("store", 0.7),
            ("record", 0.7),
            ("log", 0.5),
            ("put", 0.5),
            ("generate", 0.7),
            ("build", 0.7),
            ("start", 0.5),
            ("open", 0.3),
            ("book", 0.5),
            ("upload", 0.5),
            ("post", 0.3),
            ("note", 0.3),
            ("remember", 0.5),
            ("jot", 0.7),
            ("plan", 0.3),
            ("stick", 0.7),
            ("set", 0.3),
            ("automate", 0.5),
        ],
    ),
    (
        "update",
        &[
            ("update", 1.0),
            ("change", 1.0),
            ("rename", 1.0),
            ("mark", 1.0),
            ("move", 1.0),
            ("edit", 1.0),
            ("modify", 1.0),
            ("adjust", 1.0),
            ("tweak", 1.0),
            ("fix", 0.7),
            ("correct", 0.7),
            ("revise", 1.0),
            ("replace", 0.7),
            ("toggle", 0.7),
            ("enable", 0.5),
            ("disable", 0.5),
            ("publish", 0.7),
            ("unpublish", 0.7),
            ("complete", 0.7),
            ("finish", 0.7),
            ("reschedule", 1.0),
            ("postpone", 1.0),
            ("append", 0.5),
            ("switch", 0.5),
            ("alter", 1.0),
            ("amend", 1.0),
            ("set", 0.5),
            ("reorder", 0.7),
            ("reword", 1.0),
            ("retitle", 1.0),
            ("bump", 0.7),
            ("wrong", 0.5),
            ("outdated", 0.7),
            ("rephrase", 1.0),
            ("rewrite", 0.7),
            ("upgrade", 0.5),
            ("patch", 0.7),
            ("swap", 0.7),
            ("push", 0.7),
        ],
    ),
    (
        "delete",
        &[
            ("delete", 1.0),
            ("remove", 1.0),
            ("drop", 1.0),
            ("cancel", 1.0),
            ("erase", 1.0),
            ("trash", 1.0),
            ("discard", 1.0),
            ("clear", 0.7),
            ("purge", 1.0),
            ("forget", 1.0),
            ("destroy", 1.0),
            ("wipe", 1.0),
            ("scrap", 1.0),
            ("ditch", 1.0),
            ("del", 1.0),
            ("unsubscribe", 0.5),
            ("archive", 0.5),
            ("dismiss", 0.7),
            ("kill", 0.7),
            ("stop", 0.7),
            ("scratch", 0.7),
            ("anymore", 0.7),
            ("nuke", 1.0),
            ("bin", 0.7),
            ("lose", 0.7),
        ],
    ),
    (
        "set",
        &[
            ("set", 1.0),
            ("configure", 1.0),
            ("switch", 0.7),
            ("choose", 0.7),
            ("select", 0.5),
            ("pick", 0.5),
            ("assign", 0.5),
            ("focus", 0.5),
        ],
    ),
    (
        "link",
        &[
            ("link", 1.0),
            ("connect", 1.0),
            ("relate", 1.0),
            ("associate", 1.0),
            ("attach", 1.0),
            ("tie", 1.0),
            ("join", 0.7),
        ],
    ),
];

/// Groups of words that name the same kind of thing in tool catalogs: a word of a
/// group also yields the group's term (`#task` for todo, chore, task). General
/// English of apps and APIs, not any one catalog's names.
const CONCEPTS: &[(&str, &[&str])] = &[
    (
        "task",
        &[
            "task",
            "todo",
            "chore",
            "errand",
            "checklist",
            "backlog",
            "deadline",
            "due",
        ],
    ),
    (
        "memory",
        &[
            "memory",
            "remember",
            "recall",
            "fact",
            "note",
            "knowledge",
            "memorize",
            "know",
            "jot",
        ],
    ),
    (
        "reminder",
        &[
            "reminder", "remind", "nudge", "alarm", "alert", "poke", "nag",
        ],
    ),
    (
        "schedule",
        &[
            "schedule",
            "recurring",
            "recurrence",
            "routine",
            "periodic",
            "daily",
            "weekly",
            "hourly",
            "cron",
            "briefing",
            "digest",
            "autopilot",
            "automation",
            "automate",
            "automatic",
            "automatically",
            "job",
        ],
    ),
    ("email", &["email", "mail", "gmail", "inbox", "mailbox"]),
    ("message", &["message", "sms", "text", "chat", "dm"]),
    (
        "person",
        &[
            "person",
            "people",
            "contact",
            "entity",
            "someone",
            "colleague",
            "friend",
            "anyone",
            "anybody",
            "somebody",
            "organisation",
            "organization",
            "org",
            "company",
        ],
    ),
    (
        "instruction",
        &[
            "instruction",
            "rule",
            "preference",
            "guideline",
            "always",
            "never",
            "tone",
            "style",
            "formal",
            "informal",
            "casual",
            "concise",
            "verbose",
            "wordy",
            "emoji",
            "emojis",
            "persona",
        ],
    ),
    (
        "image",
        &[
            "image",
            "photo",
            "picture",
            "pic",
            "graphic",
            "illustration",
            "media",
            "jpg",
            "png",
        ],
    ),
    ("post", &["post", "article", "blog", "story"]),
    ("page", &["page", "webpage", "landing"]),
    ("section", &["section", "block", "component", "widget"]),
    (
        "navigation",
        &["navigation", "nav", "menu", "navbar", "header", "tab"],
    ),
    ("web", &["web", "internet", "online", "website", "google"]),
    ("url", &["url", "link", "address", "endpoint", "href"]),
    ("calendar", &["calendar", "event", "meeting", "appointment"]),
    (
        "time",
        &["time", "date", "clock", "today", "now", "current"],
    ),
    ("weather", &["weather", "forecast", "temperature", "rain"]),
    (
        "money",
        &[
            "money", "price", "cost", "currency", "payment", "pay", "fee",
        ],
    ),
    ("file", &["file", "document", "doc", "attachment"]),
    ("user", &["user", "account", "profile", "member"]),
    (
        "location",
        &["location", "place", "city", "where", "nearby"],
    ),
    ("movie", &["movie", "film", "cinema"]),
    ("name", &["name", "named", "called", "titled"]),
    ("testimonial", &["testimonial", "review", "quote"]),
    ("team", &["team", "staff", "employee", "crew"]),
    ("latest", &["latest", "newest", "recent", "recently"]),
    ("music", &["music", "song", "track", "playlist"]),
    ("answer", &["answer", "reply", "respond", "response"]),
    ("trip", &["trip", "travel", "flight", "hotel", "booking"]),
    (
        "restaurant",
        &["restaurant", "food", "dinner", "lunch", "meal"],
    ),
];

fn concept_table() -> &'static HashMap<String, Vec<&'static str>> {
    static TABLE: OnceLock<HashMap<String, Vec<&'static str>>> = OnceLock::new();
    static TERMS: OnceLock<Vec<String>> = OnceLock::new();
    let terms = TERMS.get_or_init(|| {
        CONCEPTS
            .iter()
            .map(|(concept, _)| format!("#{concept}"))
            .collect()
    });
    TABLE.get_or_init(|| {
        let mut table: HashMap<String, Vec<&'static str>> = HashMap::new();
        for ((_, members), term) in CONCEPTS.iter().zip(terms) {
            for &member in *members {
                for key in [member.to_owned(), stem(member)] {
                    let groups = table.entry(key).or_default();
                    if !groups.contains(&term.as_str()) {
                        groups.push(term.as_str());
                    }
                }
            }
        }
        table
    })
}

/// Multi-word phrases that stand for one verb, replaced before stemming.
const PHRASES: &[(&[&str], &str)] = &[
    (&["get", "rid", "of"], "delete"),
    (&["to", "do"], "todo"),
    (&["throw", "away"], "delete"),
    (&["throw", "out"], "delete"),
    (&["take", "off"], "delete"),
    (&["cross", "off"], "update"),
    (&["tick", "off"], "update"),
    (&["check", "off"], "update"),
    (&["look", "up"], "search"),
    (&["look", "for"], "search"),
    (&["pull", "up"], "get"),
    (&["write", "down"], "create"),
    (&["note", "down"], "create"),
    (&["set", "up"], "create"),
    (&["sign", "up"], "create"),
    (&["turn", "off"], "stop"),
    (&["switch", "off"], "stop"),
    (&["call", "off"], "cancel"),
    (&["no", "longer"], "anymore"),
    (&["heads", "up"], "reminder"),
    (&["let", "me", "forget"], "remind"),
    (&["keep", "in", "mind"], "remember"),
    (&["from", "now", "on"], "always"),
    (&["on", "my", "plate"], "todo"),
    (&["i", "have", "to"], "todo"),
    (&["who", "is"], "person"),
    (&["who", "s"], "person"),
    (&["out", "of", "date"], "outdated"),
    (&["write", "up"], "article"),
    (&["came", "in"], "email"),
    (&["stick", "to"], "focus"),
    (&["kinds", "of"], "template"),
    (&["types", "of"], "template"),
    (&["keep", "track", "of"], "record"),
    (&["on", "file"], "memory"),
    (&["write", "to", "me"], "email"),
    (&["wrote", "to", "me"], "email"),
    (&["go", "live"], "publish"),
    (&["can", "go"], "delete"),
    (&["should", "go"], "delete"),
    (&["don", "t", "need"], "anymore"),
    (&["dont", "need"], "anymore"),
    (&["make", "a", "link"], "link"),
    (&["put", "up"], "create"),
    (&["look", "around"], "search"),
    (&["out", "there"], "online"),
    (&["tell", "you"], "recall"),
    (&["told", "you"], "recall"),
];

/// Words naming a stretch of time: after `every` or `each` they make a recurrence
/// ("every Monday", "each evening").
const TIME_UNITS: &[&str] = &[
    "minute",
    "minutes",
    "hour",
    "day",
    "morning",
    "afternoon",
    "evening",
    "night",
    "week",
    "weekday",
    "weekend",
    "month",
    "year",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Replaces the phrases of [`PHRASES`] in a list of lowercase words.
/// One pass into a new list, so a message of many phrases costs time in
/// proportion to its length.
pub(crate) fn replace_phrases(words: &mut Vec<String>) {
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let found = PHRASES.iter().find(|(phrase, _)| {
            words.len() - i >= phrase.len() && phrase.iter().zip(&words[i..]).all(|(p, w)| p == w)
        });
        if let Some((phrase, verb)) = found {
            out.push((*verb).to_owned());
            i += phrase.len();
            continue;
        }
        let mut word = std::mem::take(&mut words[i]);
        if (word == "every" || word == "each")
            && words
                .get(i + 1)
                .is_some_and(|next| TIME_UNITS.contains(&next.as_str()))
        {
            "recurring".clone_into(&mut word);
        }
        out.push(word);
        i += 1;
    }
    *words = out;
}

/// The verb classes a word (lowercase, unstemmed) belongs to, with weights:
/// `remove` -> `[("@delete", 1.0)]`.
pub(crate) fn verb_classes(word: &str) -> &'static [(&'static str, f32)] {
    verb_classes_stemmed(word, &stem(word))
}

/// [`verb_classes`] with the word's stem already at hand.
pub(crate) fn verb_classes_stemmed(word: &str, stemmed: &str) -> &'static [(&'static str, f32)] {
    let table = verb_table();
    table
        .get(word)
        .or_else(|| table.get(stemmed).filter(|_| stemmed.len() > 3))
        .map_or(&[], Vec::as_slice)
}

/// Every verb of [`VERB_CLASSES`], as written and stemmed (when longer than three
/// letters, so `news` does not become `new`), with its classes. Built once.
fn verb_table() -> &'static HashMap<String, Vec<(&'static str, f32)>> {
    static TABLE: OnceLock<HashMap<String, Vec<(&'static str, f32)>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: HashMap<String, Vec<(&'static str, f32)>> = HashMap::new();
        for (class, members) in VERB_CLASSES {
            for &(member, weight) in *members {
                let mut keys = vec![member.to_owned()];
                if member.len() > 3 {
                    keys.push(stem(member));
                }
                keys.dedup();
                for key in keys {
                    let classes = table.entry(key).or_default();
                    if !classes.iter().any(|(known, _)| *known == class_term(class)) {
                        classes.push((class_term(class), weight));
                    }
                }
            }
        }
        table
    })
}

/// What the word tables say about one key (a word or a stem).
#[derive(Debug, Default)]
struct Lexeme {
    verbs: &'static [(&'static str, f32)],
    concepts: &'static [&'static str],
    /// Whether the key, as a word, is a stop word.
    stop: bool,
}

/// What the word tables say about one word of a text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Lookup {
    /// Its verb classes ([`verb_classes`]).
    pub(crate) verbs: &'static [(&'static str, f32)],
    /// Its concept terms (`todo` -> `#task`).
    pub(crate) concepts: &'static [&'static str],
    /// Whether it is a stop word ([`is_stop_word`]).
    pub(crate) stop: bool,
}

/// The verb table, the concept table and the stop words in one map, so that a
/// word costs one lookup (two when its stem differs and is needed). Built once.
fn lexicon() -> &'static HashMap<String, Lexeme> {
    static TABLE: OnceLock<HashMap<String, Lexeme>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: HashMap<String, Lexeme> = HashMap::new();
        for (key, verbs) in verb_table() {
            table.entry(key.clone()).or_default().verbs = verbs.as_slice();
        }
        for (key, concepts) in concept_table() {
            table.entry(key.clone()).or_default().concepts = concepts.as_slice();
        }
        for &word in STOP_WORDS {
            table.entry(word.to_owned()).or_default().stop = true;
        }
        table
    })
}

/// The word tables' answers for `word` (lowercase) with its stem: the same as
/// [`verb_classes_stemmed`], the concept groups (`todo` -> `#task`, by the word
/// or else its stem) and [`is_stop_word`], in one or two
/// lookups.
pub(crate) fn look_up(word: &str, stemmed: &str) -> Lookup {
    let table = lexicon();
    let by_word = table.get(word);
    let verbs = by_word.map_or(&[][..], |lexeme| lexeme.verbs);
    let concepts = by_word.map_or(&[][..], |lexeme| lexeme.concepts);
    let stop = by_word.is_some_and(|lexeme| lexeme.stop);
    if (!verbs.is_empty() && !concepts.is_empty()) || stemmed == word {
        return Lookup {
            verbs,
            concepts,
            stop,
        };
    }
    let by_stem = table.get(stemmed);
    Lookup {
        verbs: if verbs.is_empty() && stemmed.len() > 3 {
            by_stem.map_or(&[][..], |lexeme| lexeme.verbs)
        } else {
            verbs
        },
        concepts: if concepts.is_empty() {
            by_stem.map_or(&[][..], |lexeme| lexeme.concepts)
        } else {
            concepts
        },
        stop,
    }
}

/// File types a message may name (`goods.xlsx`, `/tmp/report.pdf`) and the words
/// of the tools that act on them: a file is read, written or converted by a
/// spreadsheet, document or file tool whose description says "Excel" or
/// "spreadsheet", never "xlsx" alone. Extensions are matched lowercase.
pub(crate) const FILE_TYPES: &[(&[&str], &[&str])] = &[
    (
        &["xlsx", "xls", "xlsm", "xlsb", "ods"],
        &["excel", "spreadsheet", "workbook", "sheet"],
    ),
    (&["csv", "tsv"], &["csv", "spreadsheet", "table"]),
    (
        &["docx", "doc", "odt", "rtf"],
        &["word", "document", "docx"],
    ),
    (&["pdf"], &["pdf", "document"]),
    (
        &["pptx", "ppt", "odp"],
        &["powerpoint", "presentation", "slide"],
    ),
    (&["md", "markdown"], &["markdown", "text"]),
    (&["txt", "log"], &["text"]),
    (&["json", "jsonl", "ndjson"], &["json"]),
    (&["yaml", "yml"], &["yaml"]),
    (&["xml"], &["xml"]),
    (&["html", "htm"], &["html", "webpage"]),
    (
        &[
            "png", "jpg", "jpeg", "gif", "webp", "bmp", "svg", "tiff", "heic",
        ],
        &["image", "picture"],
    ),
    (&["mp3", "wav", "flac", "ogg", "m4a", "aac"], &["audio"]),
    (&["mp4", "mov", "avi", "mkv", "webm"], &["video"]),
    (
        &["zip", "tar", "gz", "tgz", "7z", "rar"],
        &["archive", "compress"],
    ),
    (&["db", "sqlite", "sqlite3", "sql"], &["database", "sql"]),
    (
        &[
            "py", "js", "ts", "rs", "go", "java", "rb", "cpp", "sh", "ipynb",
        ],
        &["code", "script"],
    ),
];

/// The words every file name or path in a message brings, whatever its type.
const FILE_WORDS: &[&str] = &["file"];

/// The words a directory path (`/root/data/`) brings.
const DIRECTORY_WORDS: &[&str] = &["directory", "folder"];

/// The words the file names and paths in `message` bring in ([`FILE_TYPES`],
/// `file` for any file, `directory` for a path ending in `/`), each once, in the
/// table's order. One pass over the message's whitespace-separated tokens: a
/// message of a million file names costs a million token checks and brings at
/// most every word of the tables.
pub(crate) fn file_words(message: &str) -> Vec<&'static str> {
    let mut types = vec![false; FILE_TYPES.len()];
    let (mut file, mut directory) = (false, false);
    for token in message.split_whitespace() {
        let token = token.trim_matches(|c: char| {
            matches!(
                c,
                '"' | '\''
                    | '`'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '<'
                    | '>'
                    | ','
                    | ';'
                    | '!'
                    | '?'
                    | '“'
                    | '”'
                    | '‘'
                    | '’'
            )
        });
        let token = token.trim_end_matches(['.', ':']);
        let path = token.starts_with(['/', '~']) || token.starts_with("./") || token.contains('\\');
        if path && token.len() > 1 && token.ends_with(['/', '\\']) {
            directory = true;
            continue;
        }
        let last = token.rsplit(['/', '\\']).next().unwrap_or(token);
        let Some((stem, extension)) = last.rsplit_once('.') else {
            file |= path && token.len() > 1 && token[1..].contains(['/', '\\']);
            continue;
        };
        if stem.is_empty() || extension.is_empty() || extension.len() > 8 {
            continue;
        }
        let extension = extension.to_ascii_lowercase();
        if let Some(at) = FILE_TYPES
            .iter()
            .position(|(extensions, _)| extensions.contains(&extension.as_str()))
        {
            types[at] = true;
            // A web address's file type still says what a tool reads
            // (`https://x.test/report.pdf`), but it names no local file.
            file |= !token.contains("://");
        }
    }
    let mut out: Vec<&'static str> = Vec::new();
    for (at, _) in types.iter().enumerate().filter(|&(_, named)| *named) {
        for &word in FILE_TYPES[at].1 {
            if !out.contains(&word) {
                out.push(word);
            }
        }
    }
    if file {
        out.extend(FILE_WORDS);
    }
    if directory {
        out.extend(DIRECTORY_WORDS);
    }
    out
}

/// The term standing for a verb class.
fn class_term(class: &str) -> &'static str {
    match class {
        "get" => "@get",
        "search" => "@search",
        "create" => "@create",
        "update" => "@update",
        "delete" => "@delete",
        "set" => "@set",
        _ => "@link",
    }
}

/// Whether `term` is a verb class (used to tell verb-only matches apart).
pub(crate) fn is_verb_term(term: &str) -> bool {
    term.starts_with('@')
}

/// The term of a word's class of the default vocabulary (`list` -> `@get`), when
/// the word fully means it.
pub(crate) fn verb_term(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    verb_classes(&lower)
        .iter()
        .find(|&&(_, weight)| weight >= 1.0)
        .map(|&(term, _)| term)
}

/// A word's class of the default vocabulary, for a tool's verb (`list` -> `get`).
pub(crate) fn canonical_verb(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    verb_classes(&lower)
        .iter()
        .find(|&&(_, weight)| weight >= 1.0)
        .map(|&(term, _)| &term[1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_snake_camel_and_capital_runs() {
        assert_eq!(words("getNavItem"), ["get", "nav", "item"]);
        assert_eq!(words("delete_tasks"), ["delete", "tasks"]);
        assert_eq!(
            words("HTTPServer.get_v2"),
            ["http", "server", "get", "v", "2"]
        );
        assert_eq!(
            words("ChaDri.change_drink"),
            ["cha", "dri", "change", "drink"]
        );
        assert_eq!(words("  Soft-delete, ids!"), ["soft", "delete", "ids"]);
    }

    #[test]
    fn stems_meet_across_plurals_and_verb_forms() {
        for (a, b) in [
            ("task", "tasks"),
            ("memory", "memories"),
            ("remind", "reminders"),
            ("reminder", "reminders"),
            ("schedule", "scheduled"),
            ("schedule", "schedules"),
            ("entry", "entries"),
            ("image", "images"),
            ("delete", "deleting"),
            ("run", "running"),
            ("search", "searches"),
            ("note", "noted"),
            ("name", "named"),
            ("name", "naming"),
            ("make", "making"),
            ("close", "closed"),
            ("add", "added"),
            ("add", "adding"),
            ("create", "created"),
            ("stop", "stopped"),
            ("set", "setting"),
            ("open", "opened"),
            ("fix", "fixed"),
            ("play", "played"),
            ("speed", "speed"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_ne!(stem("post"), stem("page"));
        assert_ne!(stem("noted"), stem("not"));
        assert_eq!(
            (stem("opened"), stem("speed")),
            ("open".into(), "speed".into())
        );
        assert_eq!(stem("gmail"), "gmail");
        assert_eq!(canonical_verb("news"), None);
    }

    #[test]
    fn stray_verbs_map_to_the_vocabulary() {
        assert_eq!(canonical_verb("list"), Some("get"));
        assert_eq!(canonical_verb("remove"), Some("delete"));
        assert_eq!(canonical_verb("removing"), Some("delete"));
        assert_eq!(canonical_verb("rename"), Some("update"));
        assert_eq!(canonical_verb("add"), Some("create"));
        assert_eq!(canonical_verb("find"), Some("search"));
        assert_eq!(canonical_verb("groceries"), None);
        let mut phrase: Vec<String> = ["get", "rid", "of", "milk"].map(String::from).into();
        replace_phrases(&mut phrase);
        assert_eq!(phrase, ["delete", "milk"]);
    }

    #[test]
    fn every_or_each_before_a_time_unit_is_a_recurrence() {
        for (words, read) in [
            (
                &["every", "monday", "at", "9"][..],
                &["recurring", "monday", "at", "9"][..],
            ),
            (&["each", "evening"], &["recurring", "evening"]),
            (&["every", "task"], &["every", "task"]),
        ] {
            let mut words: Vec<String> = words.iter().map(|word| (*word).to_owned()).collect();
            replace_phrases(&mut words);
            assert_eq!(words, read);
        }
    }
}
