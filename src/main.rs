//! The `fsmcp` command: parse flags, open the roots (from the flags or a `--config` file), then
//! serve stdio or Streamable HTTP (`--http`), run one call, or print the tool catalogue
//! (`--describe`).
//! Start-up errors print one line to stderr and exit 64; nothing but protocol reaches stdout
//! while serving.

use std::io::Write;
use std::process::ExitCode;

use fsmcp::config::{EXIT_CONFIG, Invocation, help_text, parse_args};
use fsmcp::server::http::serve_http;
use fsmcp::server::oneshot::{CallOutcome, call};
use fsmcp::server::serve_stdio;

fn main() -> ExitCode {
    // A bug must not spill a stack trace (or a host path) anywhere; one line on stderr says
    // where it happened, and the call that hit it answers "internal error".
    std::panic::set_hook(Box::new(|info| {
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        err(&format!("fsmcp: internal error{place}"));
    }));
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let options = match parse_args(&argv) {
        Ok(Invocation::Help) => {
            out(&help_text());
            return ExitCode::SUCCESS;
        }
        Ok(Invocation::Version) => {
            out(fsmcp::SERVER_VERSION);
            return ExitCode::SUCCESS;
        }
        Ok(Invocation::Run(options)) => options,
        Err(error) => return config_failure(&error.to_string()),
    };
    // Before the roots are opened, so what opening them finds (a kernel without openat2) is
    // logged too.
    init_logging(options.log_level.as_deref());
    let prepared = match fsmcp::app::prepare(&options, |name| std::env::var(name).ok()) {
        Ok(prepared) => prepared,
        Err(error) => return config_failure(&error.to_string()),
    };
    let http = match prepared
        .http
        .as_ref()
        .map(|h| h.resolve(|name| std::env::var(name).ok()))
    {
        None => None,
        Some(Ok(http)) => Some(http),
        Some(Err(error)) => return config_failure(&error.to_string()),
    };
    // Named once, after the roots are open (the kernel has by then said whether it takes
    // openat2), so an operator can see which of each platform's doors is in use.
    tracing::info!(target: "fsmcp::platform", "{}", fsmcp::root::Platform::current());
    for warning in &prepared.warnings {
        err(&format!("fsmcp: {warning}"));
    }
    if options.describe {
        let catalogue = prepared.server.describe();
        let text = serde_json::to_string_pretty(&catalogue).unwrap_or_default();
        out(&text);
        return ExitCode::SUCCESS;
    }
    // A server that will answer many calls first clears what killed servers left behind.
    if options.call.is_none() {
        prepared.sweep_stale_temps();
    }
    // One thread multiplexes the protocol; tool work runs on the blocking pool, whose threads
    // start only when a call needs one (so start-up spawns no thread before the first answer).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(_) => return config_failure("startup failed"),
    };
    let code = runtime.block_on(async move {
        match options.call {
            Some(one) => {
                match call(prepared.server, options.protocol, &one.tool, &one.arguments).await {
                    Ok(CallOutcome::Result { result, is_error }) => {
                        out(&serde_json::to_string_pretty(&result).unwrap_or_default());
                        if is_error { 1 } else { 0 }
                    }
                    Ok(CallOutcome::ProtocolError(message)) => {
                        err(&format!("fsmcp: {message}"));
                        2
                    }
                    Err(message) => {
                        err(&message);
                        EXIT_CONFIG
                    }
                }
            }
            None => match http {
                Some(http) => match serve_http(prepared.server, http, stop_signal()).await {
                    Ok(()) => 0,
                    Err(_) => {
                        err("fsmcp: cannot listen on the --http address");
                        EXIT_CONFIG
                    }
                },
                None => {
                    tokio::select! {
                        _ = serve_stdio(prepared.server, options.protocol) => {}
                        _ = stop_signal() => {}
                    }
                    0
                }
            },
        }
    });
    // A call still working (one whose client cancelled it, or went away) is let finish, so a
    // write it accepted is committed or rolled back, never cut off. The blocking stdin reader
    // may still be parked in read(2); every response has already been flushed, so leave
    // without waiting for it.
    fsmcp::wait_for_running_calls(std::time::Duration::from_secs(10));
    std::process::exit(code);
}

/// Completes on Ctrl-C or SIGTERM (Ctrl-C or Ctrl-Break on Windows).
async fn stop_signal() {
    #[cfg(unix)]
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    #[cfg(windows)]
    let mut terminate = tokio::signal::windows::ctrl_break().ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async {
            match terminate.as_mut() {
                Some(s) => { s.recv().await; }
                None => std::future::pending().await,
            }
        } => {}
    }
}

fn config_failure(message: &str) -> ExitCode {
    err(message);
    ExitCode::from(EXIT_CONFIG as u8)
}

/// Diagnostics go to stderr, and only when asked for (`--log-level` or `RUST_LOG`), so a
/// quiet start stays byte-for-byte quiet. `--log-level` sets fsmcp's own verbosity and keeps
/// every other crate at warnings: the MCP and HTTP libraries log whole messages and headers at
/// debug, which would put file contents and tokens in the log. `RUST_LOG` is the operator's
/// own filter, taken as written.
fn init_logging(level: Option<&str>) {
    let filter = match (level, std::env::var("RUST_LOG").ok()) {
        (Some("error"), _) => "error".to_owned(),
        (Some(level), _) => format!("warn,fsmcp={level}"),
        (None, Some(env)) if !env.is_empty() => env,
        _ => return,
    };
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .try_init();
}

/// Prints one line on stdout. A reader that stopped early (`| head`, `| true`) is not an error
/// worth a panic: the rest is dropped and the exit status stays what it would have been.
fn out(text: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

/// Prints one line on stderr, as [`out`] does on stdout.
fn err(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}
