//! The phrase families, as regular expressions over lower-cased normalised text.
//!
//! Each family catches a *shape* (verb + qualifier + object, speaker + modal + verb, …), not
//! one sentence. All patterns are compiled once; a pattern that fails to compile is skipped
//! (a unit test asserts that none fails).

use std::sync::OnceLock;

use regex::Regex;

use super::{
    INJECTION_AGENT_DIRECTED, INJECTION_AUTHORITY, INJECTION_NULLIFY, INJECTION_PERSONA, Tier,
};
use crate::verdict::Reason;

/// Verbs that set instructions aside.
const NULL_V: &str = r"(?:ignore|ignoring|disregard|disregarding|forget|forgo|neglect|set aside|throw out|scrap|abandon|discard|pay no (?:attention|heed|mind) to|do not (?:follow|obey|listen to|adhere to|comply with)|don'?t (?:follow|obey|listen to|comply with)|stop (?:following|obeying)|no longer (?:follow|obey)|cease following|override|overrule)";
/// What makes the instructions the *earlier, governing* ones.
const NULL_Q: &str = r"(?:previous|previously given|prior|above|earlier|preceding|foregoing|former|original|initial|your|system|developer|safety|all (?:the )?(?:other|prior|previous))";
/// What is set aside.
const NULL_N: &str = r"(?:instructions?|directions|instruction set|prompts?|directives?|rules|guidelines|guardrails|constraints|commands|orders|programming|restrictions|polic(?:y|ies)|guidance|training|limitations|filters|protocols|system message|context)";

const SECRET_N: &str = r"(?:\.env\b|env(?:ironment)? (?:file|vars?|variables)|api[ _-]?keys?|secrets?\b|secret keys?|access[ _-]?tokens?|auth(?:entication)? tokens?|bearer tokens?|tokens?\b|credentials?|passwords?|passwd|private[ _-]?keys?|ssh[ _-]?keys?|id_rsa|id_ed25519|id_ecdsa|~/\.ssh|\.ssh/|~/\.aws|\.aws/|aws[ _-]?(?:access|secret)|\.npmrc|\.netrc|\.pypirc|\.git-credentials|kubeconfig|\.kube/config|/etc/shadow|/etc/passwd|cookies|session (?:ids?|tokens?|cookies?)|keychain|seed phrase|mnemonic|[a-z_]*(?:_token|_secret|_api_key|_password)\b)";
const EXPORT_V: &str = r"(?:send|post|upload|exfiltrate|exfil|transmit|forward|e-?mail|mail|leak|submit|deliver|share|dump|beam|relay)";
const DEST: &str = r#"(?:https?://|\bwebhooks?\b|\bhooks\.|ngrok|requestbin|pipedream|pastebin|burpcollaborator|interact\.sh|webhook\.site|discord(?:app)?\.com/api|\b[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z]{2,}\b|\b(?:this|the following|my|our|that|an? external|the external) (?:url|endpoint|server|address|email|inbox|webhook|host|domain|ip)|\bgist\b|\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b)"#;

/// A compiled family member.
pub(crate) struct Pat {
    pub reason: Reason,
    pub tier: Tier,
    /// Counted in a user's own top-level words too (weak ones only in pasted or fetched text).
    pub strong: bool,
    pub re: Regex,
    /// If this matches the text just after the hit, the hit is dropped.
    pub unless_after: Option<Regex>,
}

pub(crate) struct Lexicon {
    pub pats: Vec<Pat>,
    /// Secrets sent out by a command: an upload of a secret file, or one piped to the network.
    pub export_command: Option<Regex>,
    /// Words before a command that tell the reader to run it.
    pub run_lead: Option<Regex>,
    pub export_verb: Option<Regex>,
    pub secret: Option<Regex>,
    pub public_key: Option<Regex>,
    pub dest: Option<Regex>,
    pub secrecy: Option<Regex>,
    pub urgency: Option<Regex>,
    pub instructionish: Option<Regex>,
    pub meta_lead: Option<Regex>,
    pub descriptive: Option<Regex>,
    pub negated: Option<Regex>,
    pub meta_terms: Option<Regex>,
    pub intro: Option<Regex>,
    pub meta_request: Option<Regex>,
    pub sensitive: Option<Regex>,
}

fn re(p: &str) -> Option<Regex> {
    Regex::new(p).ok()
}

struct Spec {
    reason: Reason,
    tier: Tier,
    strong: bool,
    pattern: String,
    unless_after: Option<&'static str>,
}

fn spec(reason: Reason, tier: Tier, strong: bool, pattern: impl Into<String>) -> Spec {
    Spec {
        reason,
        tier,
        strong,
        pattern: pattern.into(),
        unless_after: None,
    }
}

fn specs() -> Vec<Spec> {
    use Tier::{One, Zero};
    let self_retract: &'static str = r"^\s*(?:(?:that )?(?:i|we) (?:gave|wrote|sent|typed|provided|mentioned|said|added|put)|about|regarding|concerning|on (?:how|the)|for (?:the|this|that) (?:file|function|test|lint|build|step)|in (?:the|this|that) (?:file|readme|doc|docs|config|comment|function|section))";
    let mut v = vec![
        // --- nullify (tier 0) ---
        Spec {
            unless_after: Some(self_retract),
            ..spec(
                INJECTION_NULLIFY,
                Zero,
                true,
                format!(
                    r"\b{NULL_V}\s+(?:[a-z'’-]+\s+){{0,4}}?{NULL_Q}\s+(?:[a-z'’-]+\s+){{0,2}}?{NULL_N}\b"
                ),
            )
        },
        Spec {
            unless_after: Some(
                r"^\s+(?:in|from|of|for|on|inside|within|under|at|listed|written|found|defined|described)\b",
            ),
            ..spec(
                INJECTION_NULLIFY,
                Zero,
                true,
                format!(
                    r"\b{NULL_V}\s+(?:all|any|every|each)\s+(?:of\s+)?(?:the\s+|your\s+|these\s+|those\s+)?{NULL_N}"
                ),
            )
        },
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            format!(
                r"\b{NULL_V}\s+(?:everything|anything|all|whatever)\s+(?:(?:that\s+)?you(?:'ve| have)? (?:been|were) (?:told|instructed|given|taught|programmed)|(?:written |stated |said |mentioned )?(?:above|before this|up to this point|prior to this)|in your (?:system )?prompt)"
            ),
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"\b(?:your|the|all|any)\s+(?:previous|prior|original|initial|earlier|system|old|above)\s+(?:instructions?|prompts?|rules|directives|guidelines|restrictions)\s+(?:are|is|were|have been|has been)\s+(?:now\s+|hereby\s+)?(?:void|null|cancel+ed|revoked|obsolete|invalid|superseded|replaced|overridden|lifted|removed|disabled|suspended|no longer (?:valid|apply|applicable|in effect|active))",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"(?m)(?:^|[.!:>\]]\s*)(?:new|updated|revised|real|actual|true|override) (?:system )?instructions?\s*:",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"\b(?:instead of|rather than) (?:following |doing |completing )?(?:your|the) (?:original|previous|assigned|current|given|user'?s?) (?:task|instructions|request|prompt)\b",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            format!(
                r"\b{NULL_V}\s+(?:the\s+|all\s+(?:of\s+)?(?:the\s+)?|any\s+|your\s+)?(?:[a-z-]+\s+){{0,2}}?{NULL_N}\s+(?:(?:that\s+)?you\s+(?:were|have been|got|'ve been)\s+(?:given|told|sent|trained on|provided)|you received|given to you|(?:given\s+|stated\s+|written\s+)?above|before this (?:line|message|point)|from (?:before|earlier|your (?:system|initial) (?:prompt|message))|in your (?:system )?prompt)"
            ),
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            format!(
                r"\b(?:(?:your|all your|all of your)\s+(?:[a-z]+\s+){{0,2}}?{NULL_N}|(?:the|all|any|these)\s+(?:[a-z]+\s+)?{NULL_N}\s+(?:from|in|of)\s+(?:your|the)\s+(?:system (?:message|prompt)|developers?|creators?|training|initial prompt)|(?:the|all)\s+(?:system|safety|original|initial)\s+{NULL_N})\s+(?:now\s+)?(?:no longer apply|(?:do|does) not apply|don'?t apply|(?:are|is) (?:now )?(?:void|null|cancel+ed|lifted|suspended|disabled|revoked|off|gone|irrelevant|invalid)|(?:have|has) been (?:lifted|removed|revoked|disabled|suspended|cancel+ed))"
            ),
        ),
        // other languages
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"\b(?:ignora|ignore|olvida|olvide|omite|descarta)\s+(?:todas\s+|todos\s+)?(?:las\s+|los\s+|tus\s+|sus\s+)?(?:instrucciones|indicaciones|reglas|órdenes)\s+(?:anteriores|previas|originales|del sistema)",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"\b(?:ignore[zr]?|oublie[zr]?|ne tiens pas compte des|ne tenez pas compte des)\s+(?:toutes\s+)?(?:les\s+|tes\s+|vos\s+)?(?:instructions|consignes|directives|règles)\s+(?:précédentes|antérieures|initiales|ci-dessus|du système|d'origine)",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"\b(?:ignoriere|ignorieren sie|vergiss|vergessen sie|missachte)\s+(?:alle\s+)?(?:deine\s+|ihre\s+|die\s+)?(?:vorherigen|bisherigen|vorigen|früheren|obigen|ursprünglichen)?\s*(?:anweisungen|instruktionen|regeln|vorgaben)",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"\b(?:ignora|dimentica|ignori)\s+(?:tutte\s+)?(?:le\s+)?(?:istruzioni|regole)\s+(?:precedenti|di sistema|originali)",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"\b(?:ignore|ignora|esqueça|esqueca|desconsidere)\s+(?:todas\s+)?(?:as\s+)?(?:instruções|instrucoes|regras)\s+(?:anteriores|prévias|do sistema)",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"(?:игнорируй|игнорируйте|забудь|забудьте|проигнорируй)\s+(?:все\s+)?(?:предыдущие\s+|прошлые\s+|свои\s+|системные\s+)?(?:инструкции|указания|правила)",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"(?:忽略|忽视|无视|忘记|忘掉)(?:掉)?(?:你)?(?:之前|以前|上面|先前|前面|所有|全部|一切)(?:的)?(?:所有|全部)?(?:的)?(?:指令|指示|说明|规则|提示)",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"(?:以前|前|上記|これまで)の(?:指示|命令|ルール|指令)を(?:すべて|全て)?(?:無視|忘れ)",
        ),
        spec(
            INJECTION_NULLIFY,
            Zero,
            true,
            r"이전\s*(?:의\s*)?(?:모든\s*)?(?:지시|지침|명령)(?:사항)?(?:을|를)?\s*(?:모두\s*)?무시",
        ),
        // --- authority (tier 0) ---
        spec(
            INJECTION_AUTHORITY,
            Zero,
            true,
            r"\b(?:print|reveal|show|output|repeat|display|leak|dump|disclose|tell me|give me|share|write out|recite|echo|expose|spell out|send me|paste|list)\s+(?:me\s+|us\s+)?(?:your|ur)\s+(?:full\s+|entire\s+|complete\s+|exact\s+|original\s+|initial\s+|hidden\s+|secret\s+|internal\s+|verbatim\s+|underlying\s+|system\s+)*(?:system prompt|system message|system instructions|initial instructions|initial prompt|hidden instructions|original instructions|pre-?prompt|instructions|prompt|developer (?:prompt|message|instructions)|rules)\b",
        ),
        spec(
            INJECTION_AUTHORITY,
            Zero,
            true,
            r"\b(?:reveal|leak|dump|disclose|recite|repeat|expose)\s+(?:the\s+)?(?:full\s+|entire\s+|complete\s+|exact\s+|original\s+|initial\s+|hidden\s+|verbatim\s+)*(?:system prompt|system message|hidden instructions|initial instructions|pre-?prompt)\b",
        ),
        spec(
            INJECTION_AUTHORITY,
            Zero,
            true,
            r"\brepeat (?:everything|all|the (?:text|words|content|instructions|messages?)) (?:above|before this|you were given)|\brepeat the words above\b|\boutput (?:everything|all text) (?:above|before) this\b",
        ),
        spec(
            INJECTION_AUTHORITY,
            Zero,
            true,
            r"\b(?:jailbreak|jailbroken|unrestricted|unfiltered|uncensored|dan|evil|god|no[- ]limits?) mode\b|\bdo anything now\b|\b(?:you are|you're|act as|become|now|enable|activate|be|play) dan\b",
        ),
        spec(
            INJECTION_AUTHORITY,
            Zero,
            true,
            r"\byou (?:are|'re) (?:now )?(?:in|operating in|running in|switched to|entering) (?:developer|debug|admin|sudo|root|maintenance|test|god) mode\b|\b(?:chatgpt|claude|assistant|gpt|the ai|the model) (?:with|in) (?:developer|admin|sudo|debug) mode\b|\b(?:enter|activate|enable|switch to) (?:developer|admin|sudo|god|debug) mode,? (?:and|then|now)? ?(?:you|ignore|respond|answer)\b",
        ),
        spec(
            INJECTION_AUTHORITY,
            Zero,
            true,
            r"\b(?:system|admin|administrator|developer|root|security|emergency|anthropic|openai) (?:override|overwrite|bypass)\b",
        ),
        spec(
            INJECTION_AUTHORITY,
            Zero,
            true,
            r"\b(?:i am|i'm|this is|we are|message from|instructions from|note from|a message from) (?:an? |the )?(?:anthropic|openai|google deepmind)(?:'s)? (?:team|staff|employee|engineer|safety team|developer|admin|support|trust (?:and|&) safety)?\b",
        ),
        spec(
            INJECTION_AUTHORITY,
            Zero,
            true,
            r"\b(?:i am|i'm|this is) (?:your|the ai's|the assistant's|claude's|chatgpt's) (?:developer|creator|administrator|admin|owner|operator|programmer|maker|system administrator)\b",
        ),
        spec(
            INJECTION_AUTHORITY,
            Zero,
            true,
            r"(?m)(?:^|\s)(?:<\s*/?\s*(?:system|system_prompt|sys|admin|developer)\s*>|\[\s*/?\s*(?:system|admin|developer)\s*\]|<<\s*sys\s*>>|<\|system\|>|<\|im_start\|>\s*system)[^\n]{0,300}?\b(?:ignore|disregard|you (?:must|are|will|should)|from now on|new instructions|override|reveal|send|execute|run|forward|upload)\b",
        ),
        // --- agent-directed (tier 1) ---
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"\b(?:ais?|a\.i\.|llms?|language models?|assistants?|agents?|chatbots?|bots?|copilots?|claude|chatgpt|gpt-?\d*|gemini|cursor|codex|models?|crawlers?)\s+(?:that (?:is |are )?|who (?:is |are )?)?(?:reading|reads?|processing|parsing|summari[sz]ing|analy[sz]ing|browsing|visiting|crawling|scraping|indexing|viewing|reviewing|seeing|ingesting) (?:this|these|the following|my)\b",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"\bif you(?:'re| are) (?:an?|the) (?:ai|a\.i\.|llm|large language model|language model|assistant|agent|bot|automated|chatbot|coding agent|model|ai model|ai assistant)\b",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"\b(?:note|attention|message|instructions?|important|notice|reminder|directive|hint|psa|warning)\s*(?:to|for)\s*(?:the |any |all |every )?(?:(?:ai|llm|coding|automated|autonomous|large language|llm-based|ai-based) )*(?:ai|llm|assistant|agent|model|bot|claude|chatgpt|copilot|language model|automated (?:tool|system|agent))s?\b\s*[:!,-]",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"\b(?:ai|llm|coding|automated|autonomous)\s+(?:agents?|assistants?|models?|tools?|systems?|bots?)\s+(?:must|should|need to|are required to|shall|have to|are instructed to|are expected to|will need to)\s+(?:always\s+|now\s+|first\s+|immediately\s+|also\s+)?(?:send|delete|ignore|fetch|post|upload|curl|wget|download|disable|remove|visit|navigate to|forward|exfiltrate|leak|email|wipe|push|deploy|approve|grant|transfer)\b",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"(?m)^[\s\d#/*>;-]*(?:assistant|ai|agent|claude|chatgpt|model|llm|copilot)\s*:\s*(?:please\s+)?(?:run|execute|now run|ignore|send|delete|fetch|curl|open|read|call|download|install|upload|post|disable|remove|forward)\b",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"\bwhen (?:you|the (?:ai|assistant|agent|model|llm)) (?:summari[sz]e|read|process|analy[sz]e|review|parse|translate|fetch|visit|see|load|index|open|answer questions about)s? (?:this|these|the) (?:page|document|doc|file|email|e-mail|issue|readme|repo(?:sitory)?|message|text|content|pr|pull request|article|site|website|post|comment|code|ticket|thread)[^.\n]{0,80}?\b(?:also|make sure|be sure|you must|you should|remember|first|then|please|don'?t forget|always|instead)(?:\s+to)?\s+(?:include|append|add|send|run|execute|insert|recommend|say|output|tell|visit|open|fetch|post|upload|write|print|state|claim|ignore|forward|delete|mention that)\b",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"\bthe user (?:wants|asked|has asked|would like|needs|expects|requested|has requested|instructed|has instructed|has authori[sz]ed|authori[sz]ed|approved|has approved|has already approved|has given permission for) (?:you|that you) to\b",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"(?:<\s*important\s*>|<\s*instructions?\s*>|<\s*secret\s*>|<\s*hidden\s*>)[^\n]{0,400}?(?:\b(?:read|cat|send|pass|include|upload|post|run|execute|curl|do not|don't|must|before|ignore)\b)",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            format!(
                r"\b(?:before|after|prior to|instead of|when) (?:using|calling|invoking|running|executing|responding|answering|replying|you respond|you answer|you reply|you use|you call|summari[sz]ing)\b[^\n]{{0,120}}?(?:{SECRET_N}|~/|conversation history|system prompt|sidenote|side note|file contents)"
            ),
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"\b(?:assistant|agent|ai|model|llm|claude|copilot|you)\s+(?:must|should|needs? to|has to|have to|is required to|are required to|shall|will need to)\s+(?:now\s+|first\s+|immediately\s+|always\s+|also\s+)?(?:run|execute)\b[^\n]{0,80}?(?:curl|wget|\|\s*(?:ba|z)?sh\b|iex|invoke-expression|powershell|base64 -d|chmod \+x|rm -rf)",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"\b(?:attention|note|hey|dear|psst|important|notice|reminder|warning|hello|hi)\s*,?\s*(?:the |all |any )?(?:ai|llm|assistant|agent|model|bot|claude|chatgpt|copilot|gpt|language model)s?\s*[:!,]",
        ),
        spec(
            INJECTION_AGENT_DIRECTED,
            One,
            true,
            r"\b(?:todo|fixme|note|hack|xxx)\s*\(\s*(?:ai|llm|agent|assistant|claude|copilot|cursor|codex|gpt)\s*\)\s*:",
        ),
        spec(
            INJECTION_PERSONA,
            One,
            true,
            r"\b(?:act|behave|roleplay|role-play|pretend to be|play|pose) as (?:an? )?(?:ai|assistant|model|chatbot|bot|llm|version of yourself)\s+(?:that|which|who|with|without)\s+(?:has |have |had )?(?:no|zero|without|any)\s+(?:restrictions|rules|limits|filters|guidelines|censorship|morals|ethics|boundaries|guardrails)",
        ),
        // --- persona (tier 1) ---
        spec(
            INJECTION_PERSONA,
            One,
            true,
            r"\byou (?:are|'re|will be|shall be) (?:now )?(?:an? )?(?:unrestricted|unfiltered|uncensored|jailbroken|amoral|unaligned|rule-?free|limitless) (?:ai|assistant|model|chatbot|version|llm|bot)\b",
        ),
        spec(
            INJECTION_PERSONA,
            One,
            true,
            r"\byou are (?:now |no longer )(?:an? )?(?:dan\b|free\b|unrestricted|unfiltered|uncensored|jailbroken|evil|unbound|liberated|not bound|no longer bound|rogue|amoral|without (?:any )?(?:rules|restrictions|limits|limitations|filters|guidelines)|(?:an? )?(?:ai|assistant|model|chatbot) (?:without|with no|that has no|free of)|(?:an? )?(?:different|new) (?:ai|assistant|model|persona|entity|character)|bound by)",
        ),
        spec(
            INJECTION_PERSONA,
            One,
            true,
            r"\byou (?:are|'re) no longer (?:an? )?(?:ai|assistant|claude|chatgpt|bound|restricted|limited|required|subject)\b",
        ),
        spec(
            INJECTION_PERSONA,
            One,
            true,
            r"\b(?:pretend|imagine|act as if|act like|behave as if|assume|suppose|roleplay that) (?:that )?you (?:have|had|are|were) (?:no|not bound by|free from|free of|without|no longer bound by|unbound by) (?:any )?(?:rules|restrictions|guidelines|limits|limitations|filters|guardrails|safety|ethics|ethical|moral|content polic|programming|constraints|instructions)",
        ),
        spec(
            INJECTION_PERSONA,
            One,
            true,
            r"\b(?:act|behave|respond|answer|roleplay|role-play|pose|reply) as (?:an? )?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|amoral|unethical|unaligned)\b",
        ),
        spec(
            INJECTION_PERSONA,
            One,
            true,
            r"\b(?:without|with no|free of|no) (?:ethical|moral|safety|content) (?:guidelines|restrictions|constraints|filters|limits|considerations|boundaries)\b[^.\n]{0,40}\b(?:you|answer|respond|act)\b|\byou (?:have|now have) no (?:ethical|moral|safety|content) (?:guidelines|restrictions|constraints|filters|limits)\b",
        ),
        spec(
            INJECTION_PERSONA,
            One,
            false,
            r"\b(?:from now on|henceforth|for the rest of this (?:conversation|session)|starting now),? (?:you (?:are|will be|will act as|shall be|must act as|will respond as)|your (?:name|new name|role|persona|identity) is|act as|pretend)\b",
        ),
        spec(
            INJECTION_PERSONA,
            One,
            false,
            r"\b(?:stay|remain) in character\b|\byour new (?:name|persona|identity|role|instructions) (?:is|are)\b",
        ),
    ];
    // Chat-template tokens that open a role turn, in fetched text, followed by instructions.
    v.push(spec(
        INJECTION_AGENT_DIRECTED,
        One,
        false,
        r"(?:<\|im_start\|>|<\|start_header_id\|>|\[inst\])[^\n]{0,200}?\b(?:ignore|you must|from now on|reveal|send|execute)\b",
    ));
    v
}

fn compile() -> Lexicon {
    let pats = specs()
        .into_iter()
        .filter_map(|s| {
            Some(Pat {
                reason: s.reason,
                tier: s.tier,
                strong: s.strong,
                re: Regex::new(&s.pattern).ok()?,
                unless_after: s.unless_after.and_then(re),
            })
        })
        .collect();
    Lexicon {
        pats,
        run_lead: re(
            r"\b(?:run|execute|exec|type|paste|enter|invoke|call|please|now|must|should|then|first|just|step|assistant|agent|ai|llm|model)\b[^\n]{0,40}$",
        ),
        export_command: re(
            r#"\b(?:curl|wget|nc|ncat|http|https|xh|invoke-webrequest|iwr|invoke-restmethod|irm|scp|rsync)\b[^\n]{0,200}?(?:-d\s*@|--data(?:-binary|-raw|-urlencode)?[ =]@|-f\s*['"]?[a-z_]*=@|--upload-file\s+|-t\s+|\$\(cat\s+|`cat\s+|<\s*|\s@|-infile\s+|\s)~?[^\s'"`)]*(?:\.env\b|id_rsa|id_ed25519|id_ecdsa|\.ssh/|\.aws/|\.npmrc|\.netrc|\.pypirc|\.git-credentials|/etc/shadow|kubeconfig|\.kube/config)|\bcat\s+~?[^\s|]*(?:\.env\b|id_rsa|id_ed25519|\.ssh/|\.aws/|\.npmrc|\.netrc|\.git-credentials|/etc/shadow)[^\n|]{0,80}\|\s*(?:curl|nc|ncat|wget|http)\b"#,
        ),
        export_verb: re(&format!(
            r"(?:^|[.!?:;,\n(>*-]\s*|\b(?:and|then|please|also|now|first|immediately|must|should|to|will|you|quickly|silently|secretly|quietly|just)\s+){EXPORT_V}\b"
        )),
        secret: re(SECRET_N),
        public_key: re(r"\.pub\b|public[ _-]?keys?"),
        dest: re(DEST),
        secrecy: re(
            r"\b(?:must|should|is|are|will) not be (?:shown|told|mentioned|revealed|disclosed|reported|visible) to (?:the )?(?:user|human|operator)\b|\b(?:do not|don'?t|never|must not|mustn'?t|should not|shouldn'?t|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|mention(?:ing)? (?:this|it|that|anything) to|mention(?:ing)?|show(?:ing)?|reveal(?:ing)? (?:this|it) to|ask(?:ing)?|warn(?:ing)?|let(?:ting)?|the knowledge of|confirm(?:ing)? with|bother(?:ing)?) (?:the |your )?(?:user|human|operator|developer|owner)\b|\b(?:keep|hide) (?:this|it|these (?:steps|instructions)) (?:secret |hidden )?from (?:the )?(?:user|human|operator|developer)\b|\b(?:the )?(?:user|human) (?:must|should|need|needs|does|do) not (?:know|see|notice|find out|be (?:told|informed|aware))\b|\b(?:do not|don'?t|never) (?:mention|reveal|disclose|acknowledge|show) (?:it|this|these|that) (?:in|to) (?:the )?(?:pr|pull request|commit|summary|reply|response|answer|user|chat)\b|\bdo not (?:mention|reveal|disclose|acknowledge|show) (?:this|these|that) (?:instructions?|message|note|step|steps|request|section|comment)\b|(?:^|[.!?:;\n]\s*|\b(?:and|then|please|also|now|must|should|you)\s+)(?:silently|secretly|covertly|quietly|discreetly),? (?:run|execute|send|upload|delete|remove|add|install|download|post|forward|copy|curl|modify|insert|exfiltrate|include|append|commit|push)\b",
        ),
        urgency: re(
            r"\b(?:immediately|right now|urgent(?:ly)?|asap|as soon as possible|without delay|at once|before (?:doing )?anything else|first thing|time[- ]sensitive|critical(?:ly)?|emergency|before responding|before you respond|before answering|right away|this is critical|no time|hurry)\b",
        ),
        instructionish: re(
            r"\b(?:ignore|disregard|instructions?|assistant|ai|agent|llm|model|system prompt|exfiltrat\w*|secrets?|password|api[ _-]?key|token|credentials?|curl|wget|rm -rf|do not tell|don't tell|you must|webhook|id_rsa|send (?:the|your|all))\b|\.env\b|\.ssh\b",
        ),
        meta_lead: re(
            r#"(?:\blike|\bsuch as|\be\.g\.?,?|\bi\.e\.?,?|\bfor (?:example|instance),?|\bexamples?(?: of| like| such as)?|\bkind of|\bvariants? of|\bforms? of|\bphrases?|\bstrings?|\bpayloads?|\battacks?|\binjections?|\bcalled|\bknown as|\bthe classic|\bthe infamous|\bthe famous|\btypical|\bclassic|\bdetects?|\bdetecting|\bflags?|\bflagging|\bblocks?|\bblocking|\brejects?|\brejecting|\bfilters?|\bfiltering|\bmatch(?:es|ing)?|\bcatch(?:es|ing)?|\bclassif(?:y|ies|ying)|\brecogni[sz](?:e|es|ing)|\bregex(?:es)?|\bpatterns?|\btests? (?:for|that|whether|if|with)|\btesting (?:for|that|whether|with)|\babout|\bwhat is|\bwhat are|\bwhat's|\bexplain|\bsays?|\bsaid|\bsaying|\btext|\bprompts? (?:like|such as)|\binputs? (?:like|such as)|\bmessages? (?:like|such as)|\bsentences? (?:like|such as)|\bwording|\bthe words|\bquote|\bquoting)(?:\s+[a-z']+){0,2}\s*[:\-–—]?\s*["'“”‘’`«»(\[]?\s*$"#,
        ),
        descriptive: re(
            r"\b(?:attackers?|attacks?|adversar(?:y|ies)|malicious (?:[a-z]+ )?(?:users?|actors?|content|pages?|inputs?|prompts?|documents?|websites?|instructions|text|payloads?)|hackers?|an? (?:injected|hidden|malicious|crafted) (?:prompt|instruction|payload|comment|text|message|string)|injections?|payloads?|jailbreaks?|the attack|the exploit|researchers?|red teamers?)\s+(?:[a-z']+\s+){0,5}?(?:can|could|may|might|will|would|often|typically|usually|tries|try|attempts?|says?|said|contains?|includes?|told|tells|instructs?|asks?|asked|embeds?|hides?|hid|writes?|wrote|uses?|used|inserts?|inserted|such as|like|e\.g\.)\b|\b(?:tells?|told|instructs?|instructed|asks?|asked|tricks?|tricked|convinces?|convinced|forces?|forced|causes?|caused|gets?|makes?|made|persuades?|persuaded|manipulates?|manipulated|coerces?|coaxes?|directs?|directed|telling|instructing|asking|tricking|getting|making)\s+(?:the\s+|an?\s+|your\s+|their\s+|our\s+)?(?:model|llm|ai|agent|assistant|chatbot|bot|system|gpt|claude|victim|target)s?\s+(?:to|into)\b",
        ),
        negated: re(
            r"(?:\bnever|\bnot|n't|\bcannot|\brefuse to|\brefuses to|\brefusing to|\bwithout|\bno one should|\bnobody should)\s+(?:[a-z]+\s+)?$",
        ),
        meta_terms: re(
            r"prompt[ -]injection|\binjections?\b|\bblocked\b|jailbreak|owasp|llm01|\battackers?\b|adversarial|\bmalicious\b|red[ -]team|mitigat|\bdefen[cs]e|guardrails?|classifier|detector|\bdetect|test cases?|fixtures?|\bpayloads?\b|\bexamples?\b|threat model|vulnerab|\bexploit|benchmark|dataset|canary|sanitiz|\bfilter|blocklist|denylist|\bsecurity\b|\bunit tests?\b|\bassert|\bexpected\b",
        ),
        intro: re(
            r"(?i)(?:\b(?:here(?:'s| is| are)|below is|below are|following is|pasted|copied|i got|we got|i received|we received|it says|it reads|(?:the )?contents? of|this is (?:the|what|an?|my))\b[^:\n]{0,100}:|\b(?:email|e-mail|mail|page|webpage|web page|issue|readme|output|log|logs|message|document|doc|text|file|article|comment|pr|pull request|diff|transcript|response|result|snippet|error|ticket|review|thread|website|site|post|description|tool description|answer|reply|content|source|page source|html|markdown|notes?|changelog|commit message|stack ?trace|traceback)\s*(?:\([^)\n]{0,40}\))?\s*(?:below|follows|says|reads)?\s*:)(?:[ \t]+|$)(.*)$",
        ),
        meta_request: re(
            r"\b(?:summari[sz]e|summary|tl;?dr|explain|review|read|analy[sz]e|translate|proofread|edit|improve|rewrite|check|what|why|how|fix|format|classify|detect|test|critique|assess|evaluate|compare|describe|outline|extract|cite|quote)\b",
        ),
        sensitive: re(&format!(
            r"\b(?:print|show|cat|read|give|dump|list|display|output|reveal|export|send|upload|copy|post|echo|leak|exfiltrate|grab|collect|steal|harvest|find|get)\b[^.\n]{{0,60}}?{SECRET_N}|{SECRET_N}[^.\n]{{0,60}}?\b(?:to|into) (?:https?://|a webhook|the webhook|an? (?:external|remote)|pastebin|gist)|\brm\s+-[a-z]*r[a-z]*f|\brm\s+-[a-z]*f[a-z]*r|\b(?:delete|wipe|destroy|erase|drop|truncate|purge|nuke)\b[^.\n]{{0,40}}?\b(?:all|every|entire|whole|database|databases|db|table|tables|prod|production|repo|repository|bucket|backups?|cluster|volumes?|disk|home (?:dir|directory|folder)|branch(?:es)?|history)\b|\bdrop (?:table|database|schema)\b|\bforce[- ]push|\bpush (?:--force|-f)\b|\breset --hard\b|\bmkfs\b|\bdd if=|\b(?:disable|turn off|bypass|uninstall|remove|kill|stop|skip|circumvent|deactivate|switch off|get around|evade|silence)\b[^.\n]{{0,40}}?\b(?:airlock|guard|guardrails?|hooks?|safety|security|sandbox|firewall|antivirus|protections?|--no-verify|verification|2fa|mfa|approvals?|monitoring|audit(?: log)?|logging|checks?|signing|permissions?|confirmation|enforcement)\b|--no-verify\b|\bchmod\s+(?:-r\s+)?777\b"
        )),
    }
}

/// The compiled lexicon (once per process).
pub(crate) fn lexicon() -> &'static Lexicon {
    static L: OnceLock<Lexicon> = OnceLock::new();
    L.get_or_init(compile)
}

/// How many specs there are (for the "all compile" test).
#[cfg(test)]
pub(crate) fn spec_count() -> usize {
    specs().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        let l = lexicon();
        assert_eq!(l.pats.len(), spec_count());
        for s in specs() {
            if let Some(u) = s.unless_after {
                assert!(Regex::new(u).is_ok(), "{u}");
            }
        }
        for r in [
            &l.export_command,
            &l.run_lead,
            &l.export_verb,
            &l.secret,
            &l.public_key,
            &l.dest,
            &l.secrecy,
            &l.urgency,
            &l.instructionish,
            &l.meta_lead,
            &l.descriptive,
            &l.negated,
            &l.meta_terms,
            &l.intro,
            &l.meta_request,
            &l.sensitive,
        ] {
            assert!(r.is_some());
        }
    }
}
