//! Legacy (2025-11-25) HTTP sessions with a ceiling: `rmcp`'s in-memory session manager, which
//! closes a session after five idle minutes, behind a cap on how many may be open at once, so a
//! flood of `initialize` requests cannot grow the server's state without bound. At the cap, a
//! new `initialize` closes the session used longest ago instead of being refused: a flood then
//! costs the flooder its own oldest sessions, every new client gets in, and a client whose
//! session was closed is told so (404) and initializes again, as the protocol has it. A
//! session's answers go out through [`SessionTransport`], which words them as stdio does.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};

use super::wire::word_method_not_found;

/// Most legacy sessions open at once; the next `initialize` closes the one used longest ago.
pub const MAX_SESSIONS: usize = 256;

/// [`LocalSessionManager`] holding at most [`MAX_SESSIONS`] sessions, the least recently used
/// closed to make room.
#[derive(Debug, Default)]
pub struct CappedSessions {
    inner: LocalSessionManager,
    /// When each session was last named by a request (or created).
    used: Mutex<HashMap<SessionId, Instant>>,
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The inner manager's failure.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl CappedSessions {
    fn used(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Instant>> {
        self.used.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes that a request named session `id`.
    fn touch(&self, id: &SessionId) {
        if let Some(at) = self.used().get_mut(id) {
            *at = Instant::now();
        }
    }
}

type LocalTransport = <LocalSessionManager as SessionManager>::Transport;

/// A legacy session's transport: [`LocalSessionManager`]'s, with every answer worded as on
/// stdio (`rmcp` names an unserved method where stdio says `Method not found`).
pub struct SessionTransport(LocalTransport);

impl Transport<RoleServer> for SessionTransport {
    type Error = <LocalTransport as Transport<RoleServer>>::Error;

    fn send(
        &mut self,
        mut item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        word_method_not_found(&mut item);
        self.0.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.0.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.0.close()
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionError;
    type Transport = SessionTransport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), SessionError> {
        let open: HashSet<SessionId> = self.inner.sessions.read().await.keys().cloned().collect();
        // Sessions the manager closed by itself (idle for five minutes) are forgotten here, so
        // this record never outgrows the sessions open.
        let oldest = {
            let mut used = self.used();
            used.retain(|id, _| open.contains(id));
            (open.len() >= MAX_SESSIONS)
                .then(|| open.iter().min_by_key(|id| used.get(*id).copied()).cloned())
                .flatten()
        };
        if let Some(oldest) = oldest {
            self.used().remove(&oldest);
            self.inner.close_session(&oldest).await?;
        }
        let (id, transport) = self.inner.create_session().await?;
        self.used().insert(id.clone(), Instant::now());
        Ok((id, SessionTransport(transport)))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionError> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionError> {
        self.touch(id);
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), SessionError> {
        self.used().remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionError> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
