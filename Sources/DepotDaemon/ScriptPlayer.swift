import DepotCore
import DepotSources
import Logging
import ServiceLifecycle
import Synchronization

/// Plays a `--source script:FILE` stream: at each step's time moves the script source on and loads it, so every
/// subscriber sees the step as a new state, as if the source had changed. Idle when the source is not a script;
/// a reload that changes the source starts the new script's stream from its beginning (and stops the old one).
final class ScriptPlayer: Service {
    private let repository: Repository
    private let logger: Logger
    private let sleep: @Sendable (Duration) async throws -> Void
    private let plays: AsyncStream<(source: ScriptSource?, number: Int)>
    private let playsContinuation: AsyncStream<(source: ScriptSource?, number: Int)>.Continuation
    /// The number of the play that may act: a stream started before a newer play stops at its next step.
    private let currentPlay = Atomic<Int>(0)

    /// - Parameter sleep: waits a step's delay; tests give a clock of their own.
    init(
        playing source: ScriptSource?, repository: Repository, logger: Logger,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.repository = repository
        self.logger = logger
        self.sleep = sleep
        (plays, playsContinuation) = AsyncStream.makeStream()
        playsContinuation.yield((source, 0))
    }

    /// Plays `source`'s stream from its beginning, instead of what plays now; nil stops playing.
    func play(_ source: ScriptSource?) {
        playsContinuation.yield((source, currentPlay.add(1, ordering: .sequentiallyConsistent).newValue))
    }

    func run() async throws {
        let plays = plays
        // A graceful shutdown ends the stream of plays, and cancels what still plays.
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await play in plays {
                    if let source = play.source {
                        group.addTask { await self.playStream(source, number: play.number) }
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: { [playsContinuation] in
            playsContinuation.finish()
        }
    }

    private func playStream(_ source: ScriptSource, number: Int) async {
        let script = source.script
        logger.info("playing the stream \"\(script.name)\" (\(script.steps.count) steps\(script.repeats ? ", repeating" : ""))")
        while let delay = source.nextDelay {
            do {
                try await sleep(delay)
            } catch {
                return
            }
            guard currentPlay.load(ordering: .sequentiallyConsistent) == number, source.advance() else { return }
            // Not a load that may join one already reading the step before.
            _ = await repository.loadAfterChange().result
        }
        logger.info("the stream \"\(script.name)\" is over; its last step stays")
    }
}
