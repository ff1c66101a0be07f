import ServiceLifecycle

/// A service run with its tasks preferring an executor (`withTaskExecutorPreference`): its code, and its child
/// tasks', runs there instead of on Swift's shared pool. depotd runs the repository, the change feed and the refresh
/// schedule so on the `SourceLoop`, the thread the source's answers arrive on.
struct PreferringExecutor: Service, CustomStringConvertible {
    private let service: any Service
    private let executor: any TaskExecutor

    init(_ service: any Service, _ executor: any TaskExecutor) {
        self.service = service
        self.executor = executor
    }

    /// The service's own, in the service group's log lines.
    var description: String { String(describing: service) }

    func run() async throws {
        try await withTaskExecutorPreference(executor) { try await service.run() }
    }
}
