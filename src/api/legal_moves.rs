//! `Rules.LegalMoves` on its own route, with its own encoder.
//!
//! The default answer describes about 40 moves in every notation. Built as
//! generated `Move` messages, that meant some 250 small strings allocated,
//! copied, encoded and freed per answer: as much work as the rules
//! themselves. This route writes each move's protobuf fields straight from
//! the domain [`MoveDescription`], and the coordinates-only list
//! (`MOVE_DETAIL_UCI`, some 40 strings) straight from the moves; the rest of
//! the answer is the generated message, encoded by prost. The bytes are
//! prost's own (the tests compare them), so clients see no difference. Every
//! other `Rules` method goes to the generated service.
//!
//! It stays because it made `LegalMoves` 12% faster (median; -4% to 24%)
//! for clients that decode every answer into generated messages, measured
//! against the same build answering with plain tonic, with the generated
//! Rust client and with Python grpcio, at 1, 16 and 64 requests in flight,
//! chess and xiangqi (`BENCHMARKS.md`, "Transport pieces against plain
//! tonic").

use std::future::{Ready, ready};

use prost::{Message, bytes::BufMut};
use tonic::{
    Request, Response, Status,
    codec::{Codec, EncodeBuf, Encoder},
    server::UnaryService,
};
use tonic_prost::ProstDecoder;

use super::{
    convert::{self, record},
    error::invalid_argument,
    proto as pb,
};
use crate::{
    reason::Reason,
    rules::{MoveDescription, MoveText, referee::Referee},
};

/// A `LegalMoves` answer: the generated message without its list of moves,
/// and the position whose legal moves the answer lists. The moves are
/// written as the answer is encoded, one at a time.
pub struct LegalMovesAnswer {
    head: pb::LegalMovesResponse,
    listed: Option<(Box<dyn Referee>, Listing)>,
}

/// How an answer lists the legal moves (`uci_text`, one string, is in the
/// head).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    /// `moves`: every notation (the default detail).
    Described,
    /// `uci_moves`: coordinates only.
    Coordinates,
}

impl LegalMovesAnswer {
    /// Answers `request`: INVALID_ARGUMENT for a bad position or detail.
    pub fn of(request: &pb::LegalMovesRequest) -> Result<LegalMovesAnswer, Status> {
        let r = record(request.position.as_ref())?;
        let Ok(detail) = pb::MoveDetail::try_from(request.detail) else {
            return Err(invalid_argument(
                "detail",
                Reason::UnknownEnumValue,
                "unknown detail: use MOVE_DETAIL_FULL, MOVE_DETAIL_UCI or MOVE_DETAIL_UCI_TEXT",
            ));
        };
        let mut head = pb::LegalMovesResponse {
            is_check: r.is_check(),
            outcome: Some(convert::verdict(&r.verdict(), r.variant())),
            fen: r.fen(),
            turn: convert::side(r.turn()),
            ..Default::default()
        };
        // A position the rules have already ended (bare kings, a fivefold
        // repetition) lists the moves it has too, for analysis boards; the
        // outcome beside them says that a game is over there.
        let listed = match detail {
            pb::MoveDetail::Unspecified | pb::MoveDetail::Full => Some((r, Listing::Described)),
            pb::MoveDetail::Uci => Some((r, Listing::Coordinates)),
            pb::MoveDetail::UciText => {
                head.uci_text = r.legal_moves_coordinates_text();
                None
            }
        };
        Ok(LegalMovesAnswer { head, listed })
    }

    /// The answer as the generated message.
    pub fn into_message(self) -> pb::LegalMovesResponse {
        let mut message = self.head;
        match self.listed {
            Some((r, Listing::Described)) => {
                let moves = r.legal_moves().into_iter();
                message.moves = moves.map(convert::move_description).collect();
            }
            Some((r, Listing::Coordinates)) => message.uci_moves = r.legal_moves_coordinates(),
            None => {}
        }
        message
    }

    /// The encoded length in bytes.
    pub fn encoded_len(&self) -> usize {
        let mut body = [0; MAX_MOVE_LEN];
        let mut len = self.head.encoded_len();
        match &self.listed {
            Some((r, Listing::Described)) => r.describe_legal_moves(&mut |d| {
                len += field_len(MOVES, encode_move(d, &mut body));
            }),
            Some((r, Listing::Coordinates)) => r.coordinates_of_legal_moves(&mut |text| {
                len += field_len(UCI_MOVES, text.len());
            }),
            None => {}
        }
        len
    }

    /// Writes the protobuf encoding as prost would: the described moves
    /// (field 1), then the head's fields (2 to 5, and 7 for the text), then
    /// the coordinates (field 6; the head has no text then). A message is
    /// the concatenation of its fields, so this is the whole message, in
    /// field order.
    pub fn encode(&self, buf: &mut impl BufMut) {
        if let Some((r, Listing::Described)) = &self.listed {
            encode_described(r.as_ref(), buf);
        }
        // It fails only for a buffer that cannot grow, and ours (a `Vec`,
        // tonic's `BytesMut`) grow.
        let _ = self.head.encode(buf);
        if let Some((r, Listing::Coordinates)) = &self.listed {
            r.coordinates_of_legal_moves(&mut |text| {
                put_bytes_field(buf, UCI_MOVES, text.as_bytes());
            });
        }
    }
}

/// `LegalMovesResponse.moves`.
const MOVES: u32 = 1;
/// `LegalMovesResponse.uci_moves`.
const UCI_MOVES: u32 = 6;
const VARINT: u32 = 0;
const LENGTH_DELIMITED: u32 = 2;

/// One field of a `Move` that differs from its default (proto3 leaves
/// empty strings and false flags out).
enum Field<'a> {
    Text(u32, &'a [u8]),
    /// A true bool.
    Flag(u32),
}

/// Calls `emit` with each non-default field of `d` as `pb::Move`, in field
/// order (see `common.proto`).
fn fields(d: &MoveDescription, mut emit: impl FnMut(Field<'_>)) {
    #[inline]
    fn text(emit: &mut impl FnMut(Field<'_>), number: u32, text: &[u8]) {
        if !text.is_empty() {
            emit(Field::Text(number, text));
        }
    }
    let mut letter = [0; 4];
    text(&mut emit, 1, d.uci.as_bytes());
    text(&mut emit, 2, d.san.as_bytes());
    let chinese = d.chinese.as_ref().map_or(&[][..], MoveText::as_bytes);
    text(&mut emit, 3, chinese);
    text(&mut emit, 4, d.from.as_bytes());
    text(&mut emit, 5, d.to.as_bytes());
    text(&mut emit, 6, d.piece.encode_utf8(&mut letter).as_bytes());
    for (number, piece) in [(7, d.captured), (8, d.promotion)] {
        if let Some(piece) = piece {
            text(&mut emit, number, piece.encode_utf8(&mut letter).as_bytes());
        }
    }
    for (number, flag) in [
        (9, d.is_check),
        (10, d.is_capture()),
        (11, d.is_castling),
        (12, d.is_en_passant),
    ] {
        if flag {
            emit(Field::Flag(number));
        }
    }
    // The game-neutral names of the coordinate and standard notations.
    text(&mut emit, 13, d.uci.as_bytes());
    text(&mut emit, 14, d.san.as_bytes());
}

/// Longest `Move` encoding: seven notations (the coordinates and the
/// standard one twice) and three piece letters (up to 4 bytes) with a key
/// and a length each, and four flags.
const MAX_MOVE_LEN: usize = 7 * (2 + MoveText::CAPACITY) + 3 * (2 + 4) + 4 * 2;

/// The key of `Move`'s last field, 14.
const LAST_KEY: u32 = 14 << 3 | LENGTH_DELIMITED;
// Every key and every text length fits one varint byte.
const _: () = assert!(LAST_KEY < 0x80 && MoveText::CAPACITY < 0x80);

/// Bytes of described moves gathered on the stack before they are copied
/// into the buffer: a middlegame's answer (1-1.4 KiB) in one copy.
const BLOCK: usize = 2048;
// A move, its key and a length of up to two bytes fit an empty block.
const _: () = assert!(3 + MAX_MOVE_LEN <= BLOCK && MAX_MOVE_LEN < 1 << 14);

/// Writes every legal move of `r` as a `moves` field (key, length, `Move`).
/// The moves are encoded into a block on the stack, which goes into `buf`
/// whole: copied one at a time, each move cost a call to `memcpy` and the
/// buffer's capacity checks.
fn encode_described(r: &dyn Referee, buf: &mut impl BufMut) {
    const KEY: u8 = (MOVES << 3 | LENGTH_DELIMITED) as u8;
    let mut block = [0; BLOCK];
    let mut len = 0;
    r.describe_legal_moves(&mut |d| {
        if BLOCK - len < 3 + MAX_MOVE_LEN {
            buf.put_slice(&block[..len]);
            len = 0;
        }
        // The body goes after the key and a one-byte length; in the (never
        // seen) case that its length needs two bytes, it moves one on.
        let body = block[len + 2..].first_chunk_mut().expect("room was made");
        let n = encode_move(d, body);
        block[len] = KEY;
        if n < 0x80 {
            block[len + 1] = n as u8;
            len += 2 + n;
        } else {
            block.copy_within(len + 2..len + 2 + n, len + 3);
            block[len + 1] = n as u8 | 0x80;
            block[len + 2] = (n >> 7) as u8;
            len += 3 + n;
        }
    });
    buf.put_slice(&block[..len]);
}

/// Writes `d` as a `Move` message, without its own key and length, to the
/// start of `body`; returns its length.
fn encode_move(d: &MoveDescription, body: &mut [u8; MAX_MOVE_LEN]) -> usize {
    let mut len = 0;
    // A key and a value that fit one byte each: a text's length, or true.
    let mut put = |key: u32, value: u8, text: &[u8]| {
        if let Some(slot) = body.get_mut(len..len + 2 + text.len()) {
            slot[0] = key as u8;
            slot[1] = value;
            copy_short(&mut slot[2..], text);
            len += 2 + text.len();
        }
    };
    fields(d, |field| match field {
        Field::Text(number, text) => put(number << 3 | LENGTH_DELIMITED, text.len() as u8, text),
        Field::Flag(number) => put(number << 3 | VARINT, 1, &[]),
    });
    len
}

/// `dst.copy_from_slice(src)` for the few bytes of a notation, inline: as a
/// call to `memcpy`, some 300 copies per answer cost more than the rest of
/// the encoding. Each size class is two fixed-size copies that overlap in
/// the middle.
#[inline]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    fn ends<const N: usize>(dst: &mut [u8], src: &[u8]) {
        let (head, tail) = (src.len() - N, dst.len() - N);
        if let (Ok(a), Ok(b)) = (
            <[u8; N]>::try_from(&src[..N]),
            <[u8; N]>::try_from(&src[head..]),
        ) {
            dst[..N].copy_from_slice(&a);
            dst[tail..].copy_from_slice(&b);
        }
    }
    debug_assert_eq!(dst.len(), src.len());
    match src.len() {
        0 => {}
        // First, middle and last: one, two or three bytes.
        1..4 => {
            let (last, middle) = (src.len() - 1, src.len() / 2);
            dst[0] = src[0];
            dst[middle] = src[middle];
            dst[last] = src[last];
        }
        4..8 => ends::<4>(dst, src),
        8..16 => ends::<8>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// Key, length and payload of a length-delimited field.
fn field_len(number: u32, payload: usize) -> usize {
    varint_len(u64::from(number << 3)) + varint_len(payload as u64) + payload
}

/// Writes a length-delimited field: key, length, payload.
fn put_bytes_field(buf: &mut impl BufMut, number: u32, payload: &[u8]) {
    put_varint(buf, u64::from(number << 3 | LENGTH_DELIMITED));
    put_varint(buf, payload.len() as u64);
    buf.put_slice(payload);
}

fn put_varint(buf: &mut impl BufMut, mut value: u64) {
    while value >= 0x80 {
        buf.put_u8((value & 0x7f) as u8 | 0x80);
        value >>= 7;
    }
    buf.put_u8(value as u8);
}

fn varint_len(value: u64) -> usize {
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

/// Encodes [`LegalMovesAnswer`]s and decodes requests with prost.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LegalMovesCodec;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AnswerEncoder;

impl Codec for LegalMovesCodec {
    type Encode = LegalMovesAnswer;
    type Decode = pb::LegalMovesRequest;
    type Encoder = AnswerEncoder;
    type Decoder = ProstDecoder<pb::LegalMovesRequest>;

    fn encoder(&mut self) -> AnswerEncoder {
        AnswerEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstDecoder::default()
    }
}

impl Encoder for AnswerEncoder {
    type Item = LegalMovesAnswer;
    type Error = Status;

    /// Encodes once: tonic's buffer (8 KiB to start) grows as needed, so
    /// measuring the answer first would only describe it twice.
    fn encode(&mut self, item: LegalMovesAnswer, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        item.encode(dst);
        Ok(())
    }
}

/// The `LegalMoves` method for [`Grpc::unary`].
pub(super) struct LegalMovesMethod;

impl UnaryService<pb::LegalMovesRequest> for LegalMovesMethod {
    type Response = LegalMovesAnswer;
    type Future = Ready<Result<Response<LegalMovesAnswer>, Status>>;

    fn call(&mut self, request: Request<pb::LegalMovesRequest>) -> Self::Future {
        ready(LegalMovesAnswer::of(request.get_ref()).map(Response::new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use pb::Variant::{Chess, Xiangqi};

    /// Positions with every kind of move field: captures, promotions (with
    /// check), castling, en passant, checkmates, Chinese notation, no moves,
    /// and the most moves known (218, several blocks of `encode_described`),
    /// and positions the rules have ended with moves left (bare kings, a
    /// fivefold repetition, xiangqi's bare generals).
    const CASES: [(pb::Variant, &str, &[&str]); 14] = [
        (Chess, "", &[]),
        (
            Chess,
            "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
            &[],
        ),
        (
            Chess,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            &[],
        ),
        (Chess, "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", &[]),
        (Chess, "", &["e4", "d5", "e5", "f5"]),
        (Chess, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", &[]),
        (Chess, "", &["f3", "e5", "g4", "Qh4#"]),
        (Xiangqi, "", &[]),
        (
            Xiangqi,
            "r1b1kabnr/4a4/1cn4c1/p1p1p1pCp/9/9/P1P1P1P1P/NC7/R8/R1BAKABN1 w - - 20 11",
            &["h0g2", "h9g7", "a1d1", "i9i8", "b2e2"],
        ),
        (Xiangqi, "4k4/9/9/9/9/9/9/9/4A4/3AK4 w - - 0 1", &[]),
        (Xiangqi, "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1", &[]),
        (Chess, "8/8/4k3/8/8/3K4/8/8 w - - 0 1", &[]),
        (Chess, "", &FIVEFOLD),
        (Xiangqi, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", &[]),
    ];

    /// Knights out and back four times: the start position a fifth time.
    const FIVEFOLD: [&str; 16] = [
        "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3",
        "Nf6", "Ng1", "Ng8",
    ];

    /// The hand-written encoding is byte for byte prost's, at every detail.
    #[test]
    fn encoding_equals_prost() {
        let (mut described, mut coordinates) = (0, 0);
        for (variant, fen, moves) in CASES {
            for detail in [
                pb::MoveDetail::Full,
                pb::MoveDetail::Uci,
                pb::MoveDetail::UciText,
            ] {
                let request = pb::LegalMovesRequest {
                    position: Some(pb::Position {
                        variant: variant as i32,
                        fen: fen.to_owned(),
                        moves: moves.iter().map(|&m| m.to_owned()).collect(),
                        ..Default::default()
                    }),
                    detail: detail as i32,
                };
                let answer = LegalMovesAnswer::of(&request).expect("valid position");
                let mut ours = Vec::new();
                answer.encode(&mut ours);
                assert_eq!(ours.len(), answer.encoded_len(), "{request:?}");
                let message = answer.into_message();
                described += message.moves.len();
                coordinates += message.uci_moves.len();
                assert_eq!(ours, message.encode_to_vec(), "{request:?}");
            }
        }
        assert!(described > 200, "{described} moves described");
        assert_eq!(coordinates, described);
    }

    /// Under rules that refuse a forbidden repetition, the move that would
    /// complete it is left out at every detail, and the encoding is still
    /// prost's.
    #[test]
    fn refused_moves_are_left_out_at_every_detail() {
        let completing = "c3d3";
        for detail in [
            pb::MoveDetail::Full,
            pb::MoveDetail::Uci,
            pb::MoveDetail::UciText,
        ] {
            let request = pb::LegalMovesRequest {
                position: Some(pb::Position {
                    variant: Xiangqi as i32,
                    fen: "3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1".to_owned(),
                    moves: ["d0c2", "d3c3", "c2d0", "c3d3", "d0c2", "d3c3", "c2d0"]
                        .map(str::to_owned)
                        .to_vec(),
                    xiangqi_rules: pb::XiangqiRules::AsianRefusing as i32,
                }),
                detail: detail as i32,
            };
            let answer = LegalMovesAnswer::of(&request).expect("valid position");
            let mut ours = Vec::new();
            answer.encode(&mut ours);
            assert_eq!(ours.len(), answer.encoded_len());
            let message = answer.into_message();
            assert_eq!(ours, message.encode_to_vec());
            let listed: Vec<&str> = message
                .moves
                .iter()
                .map(|m| m.uci.as_str())
                .chain(message.uci_moves.iter().map(String::as_str))
                .chain(message.uci_text.split_whitespace())
                .collect();
            assert!(listed.len() > 10, "{detail:?}: {listed:?}");
            assert!(!listed.contains(&completing), "{detail:?}: {listed:?}");
        }
    }

    #[test]
    fn short_copies_copy_every_byte() {
        let src: Vec<u8> = (1..=MoveText::CAPACITY as u8 + 2).collect();
        for len in 0..=src.len() {
            let mut dst = vec![0; len];
            copy_short(&mut dst, &src[..len]);
            assert_eq!(dst, src[..len], "{len} bytes");
        }
    }

    #[test]
    fn varint_lengths() {
        for value in [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut buf = Vec::new();
            put_varint(&mut buf, value);
            assert_eq!(buf.len(), varint_len(value), "{value}");
        }
    }
}
