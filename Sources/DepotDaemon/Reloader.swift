import DepotCore
import DepotPipeline
import DepotPlatform
import DepotServer
import DepotSources
import DepotSystemd
import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the configuration on SIGHUP (`systemctl reload depotd`): tells systemd RELOADING=1, reads the
/// settings again, applies what can change while running — the log level, the limits, the source (a new
/// source, or id field, is loaded at once), the refresh settings and the file watch, and the configured named
/// pipelines (their subscriptions switch to what they are now, or end) — and tells systemd READY=1. Settings that cannot change live (the
/// socket) are reported and kept. An invalid configuration changes nothing: the old one keeps running, the
/// journal says why, and so does the status line until a reload succeeds.
final class Reloader: Service {
    private let hangups: UnixSignalsSequence
    private let options: DaemonOptions
    private let workingDirectory: String
    /// The settings depotd started with; `run` keeps those in force since.
    private let initialSettings: DaemonSettings
    private let level: LogLevelControl
    private let server: SocketServer
    private let repository: Repository
    private let status: StatusReporter
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let makeSource: @Sendable (DaemonSettings) throws -> any Source
    private let onSourceChanged: @Sendable (any Source) -> Void
    private let onSettingsApplied: @Sendable (DaemonSettings, any Source) -> Void

    /// - Parameter hangups: SIGHUP, trapped before start-up so an early reload cannot end the process.
    init(
        hangups: UnixSignalsSequence,
        options: DaemonOptions,
        workingDirectory: String,
        settings: DaemonSettings,
        level: LogLevelControl,
        server: SocketServer,
        repository: Repository,
        status: StatusReporter,
        notifier: SystemdNotifier,
        logger: Logger,
        makeSource: @escaping @Sendable (DaemonSettings) throws -> any Source,
        onSourceChanged: @escaping @Sendable (any Source) -> Void = { _ in },
        onSettingsApplied: @escaping @Sendable (DaemonSettings, any Source) -> Void = { _, _ in }
    ) {
        self.onSourceChanged = onSourceChanged
        self.onSettingsApplied = onSettingsApplied
        self.hangups = hangups
        self.options = options
        self.workingDirectory = workingDirectory
        self.initialSettings = settings
        self.level = level
        self.server = server
        self.repository = repository
        self.status = status
        self.notifier = notifier
        self.logger = logger
        self.makeSource = makeSource
    }

    func run() async throws {
        // One reload at a time, each from the settings the last left in force.
        var settings = initialSettings
        for await _ in hangups.cancelOnGracefulShutdown() {
            settings = reload(from: settings)
        }
    }

    /// One reload, from RELOADING=1 to READY=1; returns the settings in force after it (`old` when it failed).
    private func reload(from old: DaemonSettings) -> DaemonSettings {
        notifier.reloading(status: "reloading the configuration")
        var inForce = old
        do {
            let new = try DaemonSettings.resolve(options: options, paths: .current, workingDirectory: workingDirectory)
            let sourceChanged =
                new.source != old.source || new.idField != old.idField || new.http != old.http || new.postgresPassword != old.postgresPassword
                || new.postgresReplicas != old.postgresReplicas
            // Everything that can fail is done before anything changes.
            let source = sourceChanged ? try makeSource(new) : nil
            apply(new, old: old, source: source)
            inForce = new
            status.setNote(nil)
            logger.info("reloaded the configuration\(new.configFile.map { " from \($0)" } ?? "")")
        } catch {
            status.setNote("reload failed, previous configuration kept: \(ServiceStatus.shortened("\(error)", limit: 120))")
            logger.error("reload failed; still running with the previous configuration: \(error)")
        }
        notifier.ready(status: status.current.text)
        return inForce
    }

    private func apply(_ new: DaemonSettings, old: DaemonSettings, source: (any Source)?) {
        level.current = new.logLevel
        server.updateLimits(new.connectionLimits)
        if new.socketPath != old.socketPath || new.socketMode != old.socketMode {
            logger.warning("the socket's path and mode change only on restart; still listening on \(old.socketPath)")
        }
        // The refresh settings and the file watch follow the source in force, new or not; a new file is watched
        // before it is loaded, so no change in between goes unseen.
        onSettingsApplied(new, source ?? repository.source)
        if let source {
            logger.info("the source changed to \(source.description); loading it")
            repository.replaceSource(source, idField: new.idField)
            onSourceChanged(source)
        }
        if new.itemSchema != old.itemSchema || new.maxItemBytes != old.maxItemBytes {
            logger.notice("the rules writes are checked by changed (item schema, max item bytes); they apply to every write from now on")
            repository.writeRules = new.writeRules
        }
        if new.access != old.access {
            logger.notice("the access setting changed; it applies to every call from now on, on open connections too")
            server.updateAccess(new.access)
        }
        let changed = server.pipelines.reloadConfigured()
        if !changed.isEmpty {
            logger.info("configured pipelines changed: \(changed.keys.sorted().joined(separator: ", "))")
            server.namedPipelinesChanged(changed.keys)
        }
    }
}
