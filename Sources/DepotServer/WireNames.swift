import DepotCore
import DepotOperators
import DepotWire

// The domain's names as the protocol gives them, case by case: a case added on either side does not compile until
// it is mapped here, so the wire's enums (which clients use without the daemon's code) cannot drift from the domain.
// The status's mapping is in DepotPipeline (`StateStatus+Domain.swift`), whose `statuses` operator needs it too.

extension RetrievalStrategy {
    /// The repository's strategy for a `load` call's `strategy` param.
    init(_ strategy: LoadStrategy) {
        switch strategy {
        case .fastestAvailable: self = .fastestAvailable
        case .upToDateWithFallback: self = .upToDateWithFallback
        case .returnMultipleTimes: self = .returnMultipleTimes
        }
    }
}

extension ItemOrigin {
    init(_ origin: Provenance.Origin) {
        switch origin {
        case .source: self = .source
        case .cache: self = .cache
        case .memory: self = .memory
        }
    }
}
