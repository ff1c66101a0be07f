import DepotPlatform
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Notices that the reader of depotctl's standard output has gone (`depotctl watch | head -1`: head exits, the
/// pipe's read end closes), so that a command waiting for something to print does not wait forever. A write to
/// such a pipe would fail with EPIPE, but a watch may have nothing to write for hours; the kernel reports the
/// closed read end to poll(2) as POLLERR, which a thread of its own waits for.
enum OutputReader {
    /// Returns once standard output is a pipe or socket whose reader has gone; for a terminal or a file, only
    /// when the task is cancelled.
    static func gone() async {
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else { return await waitForCancellation() }
        let wakeRead = wake[0]
        // The write end, until whoever comes first (the cancellation, or the end) closes it. Closing it wakes the
        // thread: its poll sees the read end hang up.
        let wakeWrite = Locked<Int32?>(wake[1])
        let closeWakeWrite: @Sendable () -> Void = {
            wakeWrite.withLock { descriptor in
                if let open = descriptor { close(open) }
                descriptor = nil
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // A queue of its own: libdispatch always starts a thread for it.
                DispatchQueue(label: "depotctl-output-reader").async {
                    waitForHangUp(wakingOn: wakeRead)
                    close(wakeRead)
                    continuation.resume()
                }
            }
        } onCancel: {
            closeWakeWrite()
        }
        closeWakeWrite()
    }

    /// Blocks until fd 1 reports an error or hang-up, or `wakeRead` becomes readable.
    private static func waitForHangUp(wakingOn wakeRead: Int32) {
        var descriptors = [
            pollfd(fd: STDOUT_FILENO, events: 0, revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            if descriptors[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return }
        }
    }

    private static func waitForCancellation() async {
        let (stream, continuation) = AsyncStream<Never>.makeStream()
        await withTaskCancellationHandler {
            for await _ in stream {}
        } onCancel: {
            continuation.finish()
        }
    }
}
