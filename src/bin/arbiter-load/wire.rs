//! `LegalMoves` answers checked on the wire instead of decoded into the
//! generated messages.
//!
//! Decoding the default answer builds some 200 (chess) or 260 (xiangqi)
//! strings: client work that, with server and load generator sharing two
//! cores, is counted against the server. The check here walks the protobuf
//! encoding without allocating: every field the schema knows has its wire
//! type, every string is UTF-8, every length fits, and the moves are
//! counted. `--rpc legal-moves-decoded` measures the decoding client.

use prost::bytes::{Buf, BufMut, Bytes};
use tonic::{
    Status,
    codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder},
};

/// Sends a request encoded once, and checks the answer: its `Decode` is the
/// number of legal moves the answer lists, in whichever form.
#[derive(Clone, Copy, Debug, Default)]
pub struct WireCodec;

impl Codec for WireCodec {
    type Encode = Bytes;
    type Decode = usize;
    type Encoder = WireCodec;
    type Decoder = WireCodec;

    fn encoder(&mut self) -> WireCodec {
        WireCodec
    }

    fn decoder(&mut self) -> WireCodec {
        WireCodec
    }
}

impl Encoder for WireCodec {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, request: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&request);
        Ok(())
    }
}

impl Decoder for WireCodec {
    type Item = usize;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<usize>, Status> {
        // Takes the message out of tonic's buffer without copying it.
        let answer = src.copy_to_bytes(src.remaining());
        count_moves(&answer)
            .map(Some)
            .map_err(|problem| Status::internal(format!("malformed LegalMoves answer: {problem}")))
    }
}

/// A field's value as the wire gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value<'a> {
    Varint,
    Fixed,
    Bytes(&'a [u8]),
}

/// What is wrong with an answer. Small and `Copy`: the walk returns one
/// per field, and a larger result (a `String`) cost the client more than
/// the rest of the check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Malformed {
    EndsInVarint,
    LongVarint,
    LengthOverflows,
    Overrun {
        len: usize,
        left: usize,
    },
    FieldNumber(u64),
    WireType {
        number: u32,
        wire_type: u64,
    },
    NotUtf8 {
        number: u32,
    },
    WrongType {
        message: &'static str,
        number: u32,
        value: &'static str,
    },
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Malformed::EndsInVarint => write!(f, "the message ends inside a varint"),
            Malformed::LongVarint => write!(f, "a varint is longer than 10 bytes"),
            Malformed::LengthOverflows => write!(f, "a length overflows"),
            Malformed::Overrun { len, left } => {
                write!(
                    f,
                    "a field of {len} bytes overruns the message ({left} left)"
                )
            }
            Malformed::FieldNumber(n) => write!(f, "invalid field number {n}"),
            Malformed::WireType { number, wire_type } => {
                write!(f, "field {number} has wire type {wire_type}")
            }
            Malformed::NotUtf8 { number } => write!(f, "field {number} is not UTF-8"),
            Malformed::WrongType {
                message,
                number,
                value,
            } => write!(
                f,
                "field {number} of {message} has the wrong wire type ({value})"
            ),
        }
    }
}

/// Checks `answer` as a `LegalMovesResponse` and counts its moves: the
/// described moves (field 1), the coordinate list (6) or the words of the
/// coordinate text (7).
pub fn count_moves(answer: &[u8]) -> Result<usize, String> {
    walk(answer).map_err(|problem| problem.to_string())
}

fn walk(mut answer: &[u8]) -> Result<usize, Malformed> {
    let mut moves = 0;
    while !answer.is_empty() {
        match next_field(&mut answer)? {
            (1, Value::Bytes(m)) => {
                check_move(m)?;
                moves += 1;
            }
            (3, Value::Bytes(mut outcome)) => {
                while !outcome.is_empty() {
                    next_field(&mut outcome)?;
                }
            }
            (4, Value::Bytes(text)) => utf8(4, text)?,
            (6, Value::Bytes(text)) => {
                utf8(6, text)?;
                moves += 1;
            }
            (7, Value::Bytes(text)) => {
                utf8(7, text)?;
                moves += text.split(|&b| b == b' ').count();
            }
            (2 | 5, Value::Varint) => {}
            (number @ 1..=7, value) => return Err(wrong_type("LegalMovesResponse", number, value)),
            _ => {}
        }
    }
    Ok(moves)
}

/// Checks a `Move`: notations and piece letters (1-8, 13-14) are strings,
/// the flags (9-12) varints.
fn check_move(mut m: &[u8]) -> Result<(), Malformed> {
    while !m.is_empty() {
        // The fields as the server writes them, a one-byte key and a
        // one-byte length or value, are checked here without building a
        // `Value`; anything else (and every error) goes the general way.
        if let [key @ 0..0x80, value @ 0..0x80, rest @ ..] = m {
            let number = u32::from(key >> 3);
            match (number, key & 7) {
                (1..=8 | 13..=14, 2) => {
                    if let Some((text, after)) = rest.split_at_checked(usize::from(*value)) {
                        utf8(number, text)?;
                        m = after;
                        continue;
                    }
                }
                (9..=12, 0) => {
                    m = rest;
                    continue;
                }
                _ => {}
            }
        }
        match next_field(&mut m)? {
            (number @ (1..=8 | 13..=14), Value::Bytes(text)) => utf8(number, text)?,
            (9..=12, Value::Varint) => {}
            (number @ 1..=14, value) => return Err(wrong_type("Move", number, value)),
            _ => {}
        }
    }
    Ok(())
}

#[inline]
fn utf8(number: u32, text: &[u8]) -> Result<(), Malformed> {
    // Most notations are a few ASCII bytes: checked inline, without a call.
    if text.is_ascii() || std::str::from_utf8(text).is_ok() {
        Ok(())
    } else {
        Err(Malformed::NotUtf8 { number })
    }
}

fn wrong_type(message: &'static str, number: u32, value: Value<'_>) -> Malformed {
    let value = match value {
        Value::Varint => "varint",
        Value::Fixed => "fixed",
        Value::Bytes(_) => "length-delimited",
    };
    Malformed::WrongType {
        message,
        number,
        value,
    }
}

#[inline]
fn next_field<'a>(message: &mut &'a [u8]) -> Result<(u32, Value<'a>), Malformed> {
    let key = varint(message)?;
    let number = u32::try_from(key >> 3)
        .ok()
        .filter(|&n| n > 0)
        .ok_or(Malformed::FieldNumber(key >> 3))?;
    let value = match key & 7 {
        0 => varint(message).map(|_| Value::Varint)?,
        1 => take(message, 8).map(|_| Value::Fixed)?,
        2 => {
            let len = usize::try_from(varint(message)?).map_err(|_| Malformed::LengthOverflows)?;
            Value::Bytes(take(message, len)?)
        }
        5 => take(message, 4).map(|_| Value::Fixed)?,
        wire_type => return Err(Malformed::WireType { number, wire_type }),
    };
    Ok((number, value))
}

#[inline]
fn varint(message: &mut &[u8]) -> Result<u64, Malformed> {
    // Keys and short lengths: one byte.
    if let Some((&byte, rest)) = message.split_first()
        && byte < 0x80
    {
        *message = rest;
        return Ok(u64::from(byte));
    }
    let mut value = 0;
    for shift in (0..64).step_by(7) {
        let Some((&byte, rest)) = message.split_first() else {
            return Err(Malformed::EndsInVarint);
        };
        *message = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok(value);
        }
    }
    Err(Malformed::LongVarint)
}

#[inline]
fn take<'a>(message: &mut &'a [u8], len: usize) -> Result<&'a [u8], Malformed> {
    if message.len() < len {
        return Err(Malformed::Overrun {
            len,
            left: message.len(),
        });
    }
    let (head, rest) = message.split_at(len);
    *message = rest;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use arbiter::api::proto as pb;
    use prost::Message;

    use super::*;

    fn answer(moves: usize, uci: &[&str], text: &str) -> Vec<u8> {
        let described = pb::Move {
            uci: "e7e8q".into(),
            san: "e8=Q+".into(),
            chinese: "炮二平五".into(),
            from: "e7".into(),
            to: "e8".into(),
            piece: "P".into(),
            captured: "r".into(),
            promotion: "Q".into(),
            is_check: true,
            is_capture: true,
            is_castling: false,
            is_en_passant: true,
            coordinates: "e7e8q".into(),
            standard: "e8=Q+".into(),
        };
        pb::LegalMovesResponse {
            moves: vec![described; moves],
            is_check: true,
            outcome: Some(pb::Outcome {
                status: pb::OutcomeStatus::Ongoing as i32,
                ..Default::default()
            }),
            fen: "8/4P3/8/8/8/8/8/4K2k w - - 0 1".into(),
            turn: pb::Side::White as i32,
            uci_moves: uci.iter().map(|&m| m.to_owned()).collect(),
            uci_text: text.into(),
        }
        .encode_to_vec()
    }

    #[test]
    fn counts_the_moves_in_every_form() {
        assert_eq!(count_moves(&answer(3, &[], "")), Ok(3));
        assert_eq!(count_moves(&answer(0, &["e2e4", "d2d4"], "")), Ok(2));
        assert_eq!(count_moves(&answer(0, &[], "e2e4 d2d4 g1f3")), Ok(3));
        assert_eq!(count_moves(&answer(0, &[], "")), Ok(0));
    }

    #[test]
    fn refuses_what_the_schema_does_not_allow() {
        // Cut anywhere inside the first move: a length overruns the message.
        let whole = answer(2, &[], "");
        let first_move = 2 + usize::from(whole[1]);
        for cut in 1..first_move {
            assert!(count_moves(&whole[..cut]).is_err(), "cut at {cut}");
        }
        // A string that is not UTF-8: the FEN's side to move.
        let mut bad = answer(0, &[], "");
        let turn = bad.windows(3).position(|w| w == b" w ").expect("FEN") + 1;
        bad[turn] = 0xff;
        assert!(count_moves(&bad).unwrap_err().contains("not UTF-8"));
        // `is_check` (field 2) sent as a string.
        assert!(
            count_moves(&[2 << 3 | 2, 1, b'x'])
                .unwrap_err()
                .contains("wrong wire type")
        );
        // Inside a move: a notation that is not UTF-8, a flag sent as a
        // string, a notation sent as a varint, a notation that overruns.
        let in_move = |m: &[u8]| count_moves(&[&[1 << 3 | 2, m.len() as u8], m].concat());
        assert_eq!(in_move(&[1 << 3 | 2, 2, b'e', 2]), Ok(1));
        assert!(
            in_move(&[1 << 3 | 2, 2, b'e', 0xff])
                .unwrap_err()
                .contains("field 1 is not UTF-8")
        );
        assert!(
            in_move(&[9 << 3 | 2, 1, 1])
                .unwrap_err()
                .contains("field 9 of Move")
        );
        assert!(
            in_move(&[2 << 3, 1])
                .unwrap_err()
                .contains("field 2 of Move")
        );
        assert!(
            in_move(&[1 << 3 | 2, 3, b'e'])
                .unwrap_err()
                .contains("overruns")
        );
        // A field number 0 and an unknown wire type.
        assert!(count_moves(&[0, 1]).is_err());
        assert!(count_moves(&[1 << 3 | 3]).is_err());
    }

    #[test]
    fn skips_fields_it_does_not_know() {
        let mut newer = answer(1, &[], "");
        // Field 99 (key 99 << 3 = 792, a two-byte varint), the varint 5.
        newer.extend([0x98, 0x06, 5]);
        assert_eq!(count_moves(&newer), Ok(1));
    }
}
