/// A state as the repository published it. `seq` is 0 for the idle state a repository starts in and
/// one higher for each state published after it, so a subscriber can tell order and gaps.
public struct PublishedState: Sendable, Equatable {
    public let seq: Int
    public let state: LoadingState

    public init(seq: Int, state: LoadingState) {
        self.seq = seq
        self.state = state
    }
}
