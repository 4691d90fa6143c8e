//! External UCI engines behind the analyst: Stockfish for chess and
//! Chess960 and Fairy-Stockfish for xiangqi, a long analysis stepping aside for another
//! caller, a game's positions one after another, an engine killed mid-search, one that never answers `go`, and
//! one that answers an illegal move. Without Stockfish or Fairy-Stockfish
//! installed the tests that play them skip, except under `CI=true`, where
//! they fail.

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use arbiter::{
    analysis::{
        AnalysisError, Analyst, Capacity, Job, PositionAnalysis, Score, SearchOrder,
        external::{EngineFailure, HANG_MARGIN, UciEngine, UciEngines},
    },
    engine::Level,
    peers::Peer,
    rules::{RuleChoices, Side, Variant},
};

const STOCKFISH: &str = "/usr/games/stockfish";
const FAIRY_STOCKFISH: &str = "/usr/games/fairy-stockfish";

/// Whether the engine at `path` is installed; a test without it skips
/// with a message, or fails under CI.
fn installed(path: &str) -> bool {
    if Path::new(path).exists() {
        return true;
    }
    assert_ne!(
        std::env::var("CI").as_deref(),
        Ok("true"),
        "{path} is missing: CI installs it (apt-get install stockfish fairy-stockfish)"
    );
    eprintln!("skipped: {path} is not installed (apt-get install stockfish fairy-stockfish)");
    false
}

/// An analyst whose `variant` is played by the engine at `path`.
fn analyst(variant: Variant, path: impl Into<PathBuf>) -> Analyst {
    let engine = UciEngine {
        path: path.into(),
        options: Vec::new(),
        ranks: None,
    };
    let engines = UciEngines {
        chess: variant.is_chess().then(|| engine.clone()),
        xiangqi: (variant == Variant::Xiangqi).then(|| engine.clone()),
        variants: variant
            .is_chess_variant()
            .then_some((variant, engine))
            .into_iter()
            .collect(),
        processes: 1,
    };
    Analyst::new(Capacity {
        slots: 1,
        queue: 4,
        max_wait: Duration::from_secs(30),
        seat_slots: 1,
        per_peer: 0,
    })
    .with_uci_engines(&engines)
}

fn job(variant: Variant, fen: Option<&str>, moves: &[&str]) -> Job {
    Job::new(variant, RuleChoices::default(), fen, moves).unwrap()
}

fn order(movetime: Duration) -> SearchOrder {
    SearchOrder::best_move(movetime, Level::MAX)
}

/// An executable script in `dir` that writes its process id to `pid`
/// first, then runs `body`.
fn script(dir: &Path, body: &str) -> (PathBuf, PathBuf) {
    let (path, pid) = (dir.join("engine.sh"), dir.join("pid"));
    let text = format!("#!/bin/sh\necho $$ > '{}'\n{body}\n", pid.display());
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A process another test forks while this file is open for writing
    // holds it open until it execs, and running the file fails with "text
    // file busy" until then: the script is run once, with no input (it
    // ends at once), until it runs.
    for _ in 0..100 {
        match std::process::Command::new(&path)
            .stdin(std::process::Stdio::null())
            .output()
        {
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => break,
        }
    }
    (path, pid)
}

fn pid(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap().trim().to_owned()
}

#[tokio::test]
async fn stockfish_answers_bestmove_for_chess() {
    if !installed(STOCKFISH) {
        return;
    }
    let analyst = analyst(Variant::Chess, STOCKFISH);
    analyst.start_uci_engines().await.unwrap();
    let mate = job(
        Variant::Chess,
        Some("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"),
        &[],
    );
    let analysis = analyst
        .best_move(None, mate, order(Duration::from_millis(500)))
        .await
        .unwrap();
    assert_eq!(analysis.best().unwrap().san, "Ra8#");
    assert_eq!(analysis.score(), Score::Mate(1));
    // Moves as the client wrote them reach the engine as Arbiter writes
    // them; a weak level and several lines are the engine's settings.
    let weak = SearchOrder {
        multipv: 3,
        ..SearchOrder::best_move(Duration::from_millis(300), Level::new(1).unwrap())
    };
    let analysis = analyst
        .best_move(None, job(Variant::Chess, None, &["e4", "e5", "Nf3"]), weak)
        .await
        .unwrap();
    assert!(analysis.best().is_some());
    assert_eq!(analysis.lines.len(), 3);
}

/// The chess engine plays Chess960 set to it (`UCI_Chess960`): castling
/// reaches it as the king taking its rook, and its answer is legal there.
#[tokio::test]
async fn stockfish_plays_chess960_with_castling_king_takes_rook() {
    if !installed(STOCKFISH) {
        return;
    }
    let analyst = analyst(Variant::Chess960, STOCKFISH);
    analyst.start_uci_engines().await.unwrap();
    // Start 100 (QBBNRNKR); White castled with the king staying on g1.
    let castled = job(
        Variant::Chess960,
        Some("qbbnrnkr/pppppppp/8/8/8/8/PPPPPPPP/QBBNRNKR w KQkq - 0 1"),
        &["f1g3", "f8g6", "g1h1"],
    );
    let analysis = analyst
        .best_move(None, castled, order(Duration::from_millis(300)))
        .await
        .unwrap();
    let best = analysis.best().expect("a move");
    assert!(
        best.piece.is_ascii_lowercase(),
        "a move for Black: {best:?}"
    );
}

#[tokio::test]
async fn fairy_stockfish_answers_bestmove_for_xiangqi_with_ranks_from_one() {
    if !installed(FAIRY_STOCKFISH) {
        return;
    }
    let analyst = analyst(Variant::Xiangqi, FAIRY_STOCKFISH);
    // Red mates with either chariot: b0b9 or b0d0 (b1b10, b1d1 as
    // Fairy-Stockfish writes them).
    let mate = job(
        Variant::Xiangqi,
        Some("3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1"),
        &[],
    );
    let analysis = analyst
        .best_move(None, mate, order(Duration::from_millis(500)))
        .await
        .unwrap();
    let best = analysis.best().unwrap().uci.to_string();
    assert!(["b0b9", "b0d0"].contains(&best.as_str()), "{best}");
    assert_eq!(analysis.score(), Score::Mate(1));
    // After the central cannon (h2e2, sent as h3e3) Black answers a move
    // legal in Arbiter's rules.
    let opening = job(Variant::Xiangqi, None, &["h2e2"]);
    let analysis = analyst
        .best_move(None, opening, order(Duration::from_millis(300)))
        .await
        .unwrap();
    assert!(analysis.best().unwrap().piece.is_ascii_lowercase());
}

#[tokio::test]
async fn fairy_stockfish_plays_the_lichess_variants_set_to_each() {
    if !installed(FAIRY_STOCKFISH) {
        return;
    }
    for (variant, fen, wins) in [
        // The rook in hand mates anywhere on the back rank.
        (
            Variant::Crazyhouse,
            "6k1/5ppp/8/8/8/8/8/6K1[R] w - - 0 1",
            &["R@a8", "R@b8", "R@c8", "R@d8", "R@e8", "R@f8"][..],
        ),
        // The third check wins.
        (
            Variant::ThreeCheck,
            "4k3/8/8/8/8/8/8/R3K3 w - - 1+3 0 1",
            &["a1a8", "a1e1"][..],
        ),
        // The king steps into the centre.
        (
            Variant::KingOfTheHill,
            "7k/8/8/8/8/3K4/8/8 w - - 0 1",
            &["d3d4", "d3e4"][..],
        ),
    ] {
        let analyst = analyst(variant, FAIRY_STOCKFISH);
        analyst.start_uci_engines().await.unwrap();
        let analysis = analyst
            .best_move(
                None,
                job(variant, Some(fen), &[]),
                order(Duration::from_millis(300)),
            )
            .await
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        let best = analysis.best().expect("a move").uci.to_string();
        assert!(wins.contains(&best.as_str()), "{variant}: {best}");
        assert_eq!(analysis.score(), Score::Mate(1), "{variant}");
    }
    // Debian's build has no atomic: an engine whose UCI_Variant does not
    // offer the game is refused at the start, not set to chess unawares.
    let analyst = analyst(Variant::Atomic, FAIRY_STOCKFISH);
    match analyst.start_uci_engines().await {
        Err(refused) => assert!(
            refused.to_string().contains("does not play atomic"),
            "{refused}"
        ),
        Ok(()) => {
            // The knight takes f7 and the king beside it explodes.
            let fen = "rnbqkbnr/pppppppp/8/6N1/8/8/PPPPPPPP/RNBQKB1R w KQkq - 0 1";
            let analysis = analyst
                .best_move(
                    None,
                    job(Variant::Atomic, Some(fen), &[]),
                    order(Duration::from_millis(300)),
                )
                .await
                .unwrap();
            assert_eq!(analysis.best().unwrap().uci, "g5f7");
        }
    }
}

#[tokio::test]
async fn a_long_external_analysis_steps_aside_for_another_caller() {
    if !installed(STOCKFISH) {
        return;
    }
    let peer = |n| Some(Peer::of(std::net::SocketAddr::from(([10, 0, 0, n], 1))));
    // One slot and one process.
    let analyst = analyst(Variant::Chess, STOCKFISH);
    let mut answers = analyst
        .analyze(
            peer(1),
            job(Variant::Chess, None, &[]),
            order(Duration::from_secs(60)),
        )
        .await
        .unwrap();
    answers.recv().await.unwrap().unwrap();
    // Another caller's calls each get the slot and the engine before their
    // deadline, long before the analysis ends.
    for _ in 0..2 {
        let quick = SearchOrder {
            deadline: Some(Instant::now() + Duration::from_secs(10)),
            ..order(Duration::from_millis(200))
        };
        let analysis = analyst
            .best_move(peer(2), job(Variant::Chess, None, &["d4"]), quick)
            .await
            .unwrap();
        assert!(analysis.best().is_some());
    }
    // The analysis searches on, and tells only depths deeper than it told.
    let mut deepest = 0;
    while let Ok(answer) = answers.try_recv() {
        deepest = deepest.max(answer.unwrap().0.depth);
    }
    let (next, last) = answers.recv().await.unwrap().unwrap();
    assert!(
        !last && next.depth > deepest,
        "{} after {deepest}",
        next.depth
    );
}

#[tokio::test]
async fn a_games_positions_are_analysed_on_its_external_engine() {
    if !installed(STOCKFISH) {
        return;
    }
    let analyst = analyst(Variant::Chess, STOCKFISH);
    let moves = ["f3", "e5", "g4", "Qh4#"];
    let positions =
        Job::positions_of_game(Variant::Chess, RuleChoices::default(), None, &moves).unwrap();
    let mut answers = analyst
        .analyze_game(None, positions, order(Duration::from_millis(200)))
        .await
        .unwrap();
    let mut analysed = Vec::new();
    while let Some(answer) = answers.recv().await {
        analysed.push(answer.unwrap());
    }
    assert_eq!(analysed.len(), 5);
    // Black to mate in one after 2.g4; the mated position is not searched.
    let PositionAnalysis::Searched(mate) = &analysed[3] else {
        panic!("{:?}", analysed[3]);
    };
    assert_eq!(mate.best().unwrap().san, "Qh4#");
    assert_eq!(mate.score(), Score::Mate(1));
    assert!(matches!(
        analysed[4],
        PositionAnalysis::Ended(Some(Side::Black))
    ));
}

#[tokio::test]
async fn a_killed_engine_fails_its_call_and_the_next_one_starts_another() {
    if !installed(STOCKFISH) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (path, pid_file) = script(dir.path(), &format!("exec {STOCKFISH}"));
    let analyst = analyst(Variant::Chess, path);
    let long = order(Duration::from_secs(30));
    let mut answers = analyst
        .analyze(None, job(Variant::Chess, None, &[]), long)
        .await
        .unwrap();
    // Searching: it has reported a depth.
    let (_, last) = answers.recv().await.unwrap().unwrap();
    assert!(!last);
    let killed = pid(&pid_file);
    let status = std::process::Command::new("kill")
        .args(["-9", &killed])
        .status()
        .unwrap();
    assert!(status.success());
    let failed = loop {
        match answers.recv().await.unwrap() {
            Ok((_, last)) => assert!(!last, "a killed engine gave a final answer"),
            Err(e) => break e,
        }
    };
    assert!(
        matches!(
            failed,
            AnalysisError::Engine {
                variant: Variant::Chess,
                failure: EngineFailure::Exited(_),
            }
        ),
        "{failed:?}"
    );
    assert!(failed.to_string().contains("restarted"), "{failed}");
    let analysis = analyst
        .best_move(
            None,
            job(Variant::Chess, None, &[]),
            order(Duration::from_millis(200)),
        )
        .await
        .unwrap();
    assert!(analysis.best().is_some());
    assert_ne!(pid(&pid_file), killed);
}

#[tokio::test]
async fn a_hung_engine_is_killed_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let (path, pid_file) = script(
        dir.path(),
        "while read -r line; do\n  case \"$line\" in\n    uci) echo 'id name Sleepy'; echo \
         uciok ;;\n    isready) echo readyok ;;\n  esac\ndone",
    );
    let analyst = analyst(Variant::Chess, path);
    let search = || {
        analyst.best_move(
            None,
            job(Variant::Chess, None, &[]),
            order(Duration::from_millis(100)),
        )
    };
    assert_eq!(
        search().await.unwrap_err(),
        AnalysisError::Engine {
            variant: Variant::Chess,
            failure: EngineFailure::Hung(HANG_MARGIN),
        }
    );
    let hung = pid(&pid_file);
    assert!(
        !Path::new(&format!("/proc/{hung}")).exists(),
        "the hung engine was not killed"
    );
    // The next call gets a new process (which hangs too).
    assert!(search().await.is_err());
    assert_ne!(pid(&pid_file), hung);
}

#[tokio::test]
async fn an_illegal_answer_fails_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = script(
        dir.path(),
        "while read -r line; do\n  case \"$line\" in\n    uci) echo uciok ;;\n    isready) echo \
         readyok ;;\n    go*) echo 'info depth 1 score cp 9 pv e2e5'; echo 'bestmove e2e5' ;;\n  \
         esac\ndone",
    );
    let analyst = analyst(Variant::Chess, path);
    let failed = analyst
        .best_move(
            None,
            job(Variant::Chess, None, &[]),
            order(Duration::from_millis(100)),
        )
        .await
        .unwrap_err();
    assert_eq!(
        failed,
        AnalysisError::Engine {
            variant: Variant::Chess,
            failure: EngineFailure::IllegalMove("e2e5".to_owned()),
        }
    );
}
