//! OpenTelemetry for the example server: what an operator wires up for toolkit's
//! `otel` feature (see `toolkit::otel`), exporting OTLP over HTTP (protobuf).
//!
//! On when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (`http://collector:4318`); the
//! exporter and the SDK read the standard variables (`OTEL_SERVICE_NAME`,
//! `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_METRIC_EXPORT_INTERVAL`, ...).

use std::time::Duration;

use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use toolkit::otel::opentelemetry::metrics::MeterProvider as _;
use toolkit::otel::opentelemetry::trace::TracerProvider as _;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The running pipeline: [`Telemetry::shutdown`] (or dropping it) exports what
/// is buffered.
pub struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    /// Shut down already: dropping it does nothing more.
    shut_down: bool,
}

impl Telemetry {
    /// Installs the pipeline when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: the W3C
    /// Trace Context propagator (a client's `traceparent` in `params._meta`), the
    /// `tracing` layer for toolkit's spans, and toolkit's metrics. `None` when
    /// the variable is unset.
    pub fn from_env() -> Result<Option<Telemetry>, String> {
        if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_none() {
            return Ok(None);
        }
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .build()
            .map_err(|error| format!("the OTLP span exporter: {error}"))?;
        let metrics = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .build()
            .map_err(|error| format!("the OTLP metric exporter: {error}"))?;
        let tracer_provider = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .build();
        let meter_provider = SdkMeterProvider::builder()
            .with_periodic_exporter(metrics)
            .build();
        toolkit::otel::opentelemetry::global::set_text_map_propagator(
            opentelemetry_sdk::propagation::TraceContextPropagator::new(),
        );
        // toolkit's OpenTelemetry spans only: its log-style spans (`toolkit.call`,
        // `mcp.request`) and rmcp's stay out of the traces.
        let layer = toolkit::otel::tracing_opentelemetry::layer()
            .with_tracer(tracer_provider.tracer("example-mcp-server"))
            .with_filter(
                tracing_subscriber::filter::Targets::new()
                    .with_target("toolkit::otel", tracing::Level::INFO)
                    .with_target("example_mcp_server", tracing::Level::INFO),
            );
        tracing_subscriber::registry()
            .with(layer)
            .try_init()
            .map_err(|error| format!("a tracing subscriber is already installed: {error}"))?;
        toolkit::otel::install_metrics(&meter_provider.meter("toolkit"))
            .map_err(|error| error.to_string())?;
        Ok(Some(Telemetry {
            tracer_provider,
            meter_provider,
            shut_down: false,
        }))
    }
}

impl Telemetry {
    /// Exports the spans and metrics still buffered (the batch exporter holds
    /// spans for `OTEL_BSP_SCHEDULE_DELAY`, the reader metrics for
    /// `OTEL_METRIC_EXPORT_INTERVAL`) and stops the pipeline, waiting at most
    /// `within`: a collector that does not answer does not hold up the exit.
    /// What was not exported in time is said on stderr.
    pub fn shutdown(mut self, within: Duration) {
        self.shut_down = true;
        let tracer_provider = self.tracer_provider.clone();
        let meter_provider = self.meter_provider.clone();
        let (done, finished) = std::sync::mpsc::channel();
        // The meter provider's shutdown takes no deadline of its own (the SDK
        // ignores the one it is given), so both run on a thread of their own
        // and the wait for them is bounded here.
        let worker = std::thread::Builder::new()
            .name("telemetry-shutdown".to_owned())
            .spawn(move || {
                shut_down(&tracer_provider, &meter_provider, within);
                let _ = done.send(());
            });
        if let Err(error) = worker {
            eprintln!("mcp_server: the telemetry was not flushed: {error}");
            return;
        }
        if finished.recv_timeout(within).is_err() {
            eprintln!(
                "mcp_server: the telemetry was not flushed within {} s; stopping without it",
                within.as_secs()
            );
        }
    }
}

/// Both providers shut down, each error said.
fn shut_down(
    tracer_provider: &SdkTracerProvider,
    meter_provider: &SdkMeterProvider,
    within: Duration,
) {
    if let Err(error) = tracer_provider.shutdown_with_timeout(within) {
        eprintln!("mcp_server: the last spans were not exported: {error}");
    }
    if let Err(error) = meter_provider.shutdown_with_timeout(within) {
        eprintln!("mcp_server: the last metrics were not exported: {error}");
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        // Whatever is still buffered goes out before the process ends.
        if !self.shut_down {
            shut_down(
                &self.tracer_provider,
                &self.meter_provider,
                Duration::from_secs(5),
            );
        }
    }
}
