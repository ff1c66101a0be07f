/// How a subscription's success states carry their items: in full every time (`snapshot`, the default), or as
/// a `delta` from the last success state the subscription was sent, with `count`, whenever that is smaller.
public enum SubscriptionMode: String, Sendable, CaseIterable {
    case snapshot
    case delta
}
