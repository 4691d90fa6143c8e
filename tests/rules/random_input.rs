//! No input makes the rules panic: seeded random FENs and move texts, built
//! from the characters that matter (and some that should not be there),
//! for both games, including mutations of valid FENs and moves.

use arbiter::rules::{Game, Record, chess::Chess, xiangqi::Xiangqi};

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const ALPHABET: &[&str] = &[
    "k",
    "K",
    "q",
    "Q",
    "r",
    "R",
    "b",
    "B",
    "n",
    "N",
    "p",
    "P",
    "a",
    "A",
    "c",
    "C",
    "e",
    "E",
    "h",
    "H",
    "w",
    "x",
    "-",
    "/",
    " ",
    "  ",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "8",
    "9",
    "10",
    "=",
    "+",
    ".",
    "#",
    "O",
    "炮",
    "马",
    "車",
    "进",
    "退",
    "平",
    "前",
    "后",
    "中",
    "一",
    "九",
    "１",
    "\u{0}",
    "é",
    "_",
    "\t",
    "99999999999",
];

fn random_text(rng: &mut Rng, max_pieces: usize) -> String {
    (0..rng.below(max_pieces + 1))
        .map(|_| ALPHABET[rng.below(ALPHABET.len())])
        .collect()
}

/// Replaces, inserts or deletes a character of `text`.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len() + 1);
    let piece: Vec<char> = ALPHABET[rng.below(ALPHABET.len())].chars().collect();
    match rng.below(3) {
        0 if at < chars.len() => {
            chars.splice(at..=at, piece);
        }
        1 if at < chars.len() => {
            chars.remove(at);
        }
        _ => {
            chars.splice(at..at, piece);
        }
    }
    chars.into_iter().collect()
}

fn exercise<G: Game>(seed: u64, fens: &[&str]) {
    let mut rng = Rng(seed);
    for round in 0..20_000 {
        let fen = if round % 2 == 0 {
            random_text(&mut rng, 24)
        } else {
            let base = fens[rng.below(fens.len())];
            mutate(&mut rng, base)
        };
        let pos = G::from_fen(&fen).unwrap_or_else(|_| G::start());
        let mut record = Record::new(pos.clone());
        for _ in 0..8 {
            let legal = pos.legal_moves();
            let text = match rng.below(3) {
                0 if !legal.is_empty() => {
                    let d = pos.describe(legal[rng.below(legal.len())]);
                    let forms = [d.uci, d.san, d.chinese.unwrap_or_default()];
                    let form = forms[rng.below(forms.len())];
                    mutate(&mut rng, &form)
                }
                _ => random_text(&mut rng, 6),
            };
            let _ = pos.parse_move(&text);
            let _ = record.play_text(&text);
        }
        let _ = record.verdict();
    }
}

#[test]
fn chess_never_panics() {
    exercise::<Chess>(
        0x5eed_c4e5,
        &[
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/8/8/KPp4r/8/8/8/7k w - c6 0 1",
        ],
    );
}

#[test]
fn xiangqi_never_panics() {
    exercise::<Xiangqi>(
        0x5eed_0c4e,
        &[
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            "r1b1kabnr/4a4/1cn4c1/p1p1p1pCp/9/9/P1P1P1P1P/NC7/R8/R1BAKABN1 w - - 20 11",
            "3k5/9/9/9/9/9/P8/9/9/4K4 w - - 0 1",
        ],
    );
}
