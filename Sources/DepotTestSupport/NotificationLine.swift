import DepotWire

/// Reads a stateChanged line's seq and skipped count without parsing the whole line (DepotWire's
/// `NotificationHead`), so a test's subscriber can keep up with large states.
package enum NotificationLine {
    package static func seq(in line: [UInt8]) -> Int? {
        NotificationHead(line: line)?.seq
    }

    package static func skipped(in line: [UInt8]) -> Int {
        NotificationHead(line: line)?.skipped ?? 0
    }
}

extension NotificationLine {
    /// What a subscriber saw: the seq of every notification, and the total it was told it skipped.
    package struct Seen: Sendable, Equatable {
        package var seqs: [Int]
        package var skipped: Int

        package init(seqs: [Int] = [], skipped: Int = 0) {
            self.seqs = seqs
            self.skipped = skipped
        }
    }

    /// Reads notification lines until one carries `lastSeq` (or the lines end), looking only at seq and skipped.
    package static func collect<Lines: AsyncSequence>(_ lines: Lines, untilSeq lastSeq: Int) async throws -> Seen where Lines.Element == [UInt8] {
        var seen = Seen()
        for try await line in lines {
            guard let seq = seq(in: line) else { continue }
            seen.skipped += skipped(in: line)
            seen.seqs.append(seq)
            if seq == lastSeq { break }
        }
        return seen
    }
}

/// A subscriber's notifications, read as they come by a task of its own, so a test can wait until the
/// subscriber has seen a given seq. Tests pace their mutations on it, so that a reading subscriber is never
/// behind because the test machine is busy — only a subscriber that does not read can fall behind.
package final class SubscriberProgress: Sendable {
    package let seen = Condition(NotificationLine.Seen())

    package init<Lines: AsyncSequence & Sendable>(_ lines: Lines) where Lines.Element == [UInt8] {
        let seen = self.seen
        Task {
            for try await line in lines {
                guard let seq = NotificationLine.seq(in: line) else { continue }
                let skipped = NotificationLine.skipped(in: line)
                seen.update {
                    $0.seqs.append(seq)
                    $0.skipped += skipped
                }
            }
        }
    }

    /// Waits until a notification with `seq` or later has arrived.
    package func wait(forSeq seq: Int) async {
        await seen.wait { ($0.seqs.last ?? -1) >= seq }
    }
}
