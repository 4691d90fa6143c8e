//! `grpc.health.v1.Health` follows the store: while the database cannot
//! write, the server as a whole (`""`) and the services that write (Games,
//! Positions, Players) report NOT_SERVING; Rules and Engine, which never
//! write, stay SERVING.

use tokio::task::JoinHandle;
use tonic::server::NamedService;
use tonic_health::{ServingStatus, server::HealthReporter};

use crate::{
    api::{
        GamesService, PlayersService, PositionsService,
        proto::{
            games_server::GamesServer, players_server::PlayersServer,
            positions_server::PositionsServer,
        },
    },
    store::Store,
};

/// The services whose health is the store's.
const WRITING: [&str; 4] = [
    "",
    GamesServer::<GamesService>::NAME,
    PositionsServer::<PositionsService>::NAME,
    PlayersServer::<PlayersService>::NAME,
];

/// Keeps `reporter` in step with whether `store` can write, until aborted.
pub(super) fn follow_store(store: &Store, reporter: HealthReporter) -> JoinHandle<()> {
    let mut writable = store.writable();
    tokio::spawn(async move {
        loop {
            let status = if *writable.borrow_and_update() {
                ServingStatus::Serving
            } else {
                ServingStatus::NotServing
            };
            for service in WRITING {
                reporter.set_service_status(service, status).await;
            }
            if writable.changed().await.is_err() {
                return;
            }
        }
    })
}
