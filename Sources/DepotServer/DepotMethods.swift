import DepotContract
import DepotCore
import DepotJSON
import DepotRPC
import NIOCore

/// Depot's methods, bound to one repository and its fan-out. The names, params and answers are the
/// contract described in rpc-schema/.
enum DepotMethods {
    static func dispatcher(repository: Repository, fanout: StateFanout) -> RPCDispatcher<ConnectionHandler> {
        typealias Method = RPCMethod<ConnectionHandler>
        let method = DepotProtocol.Method.self

        /// The answer to a mutation: the state it published, or its error with the state it left as `data`.
        @Sendable func answer(_ mutation: Mutation<MutationResult>) -> RPCReply {
            .deferred {
                switch await mutation.result {
                case .success(let published):
                    return .success(.encoded(fanout.encoded(published)))
                case .failure(let error):
                    return .failure(RPCError(code: error.code.rawValue, message: error.message, data: .encoded(fanout.encoded(error.state))))
                }
            }
        }

        // The document, compact (an answer is one line), encoded once.
        let document = ByteBuffer(bytes: ProtocolDocument.value.jsonBytes)

        return RPCDispatcher(methods: [
            Method(method.state) { _, _ throws(RPCError) in
                .result(.encoded(fanout.current.bytes))
            },
            Method(method.get, params: ["id"]) { params, _ throws(RPCError) in
                let id = try params.itemID("id")
                let current = fanout.current.published
                guard let items = current.state.items else {
                    throw RPCError(
                        code: DepotProtocol.ErrorCode.notFound,
                        message: "no item \"\(id)\": no items are loaded (the state is \(current.state.status.rawValue)); run load first"
                    )
                }
                guard let item = items.item(id: id) else {
                    throw RPCError(code: DepotProtocol.ErrorCode.notFound, message: "no item with id \"\(id)\" among the \(items.count) loaded items")
                }
                return .result(.encoded(ByteBuffer(bytes: item.json)))
            },
            Method(method.load, params: ["strategy"]) { params, connection throws(RPCError) in
                let strategy = try params.choice("strategy", of: RetrievalStrategy.self) ?? .defaultForLoad
                connection.noteMutation(method.load, strategy == .defaultForLoad ? "" : strategy.rawValue)
                return answer(repository.load(strategy: strategy))
            },
            Method(method.remove, params: ["id", "optimistic"]) { params, connection throws(RPCError) in
                let id = try params.itemID("id")
                let optimistic = try params.bool("optimistic", default: false)
                connection.noteMutation(method.remove, optimistic ? "\(id) (optimistic)" : id)
                return answer(repository.remove(id: id, optimistic: optimistic))
            },
            Method(method.wipe) { _, connection throws(RPCError) in
                connection.noteMutation(method.wipe)
                return answer(repository.wipe())
            },
            Method(method.subscribe) { _, connection throws(RPCError) in
                let id = try connection.subscribe()
                return .result(.value(["subscription": .string(id)]))
            },
            Method(method.unsubscribe, params: ["subscription"]) { params, connection throws(RPCError) in
                let id = try params.string("subscription")
                return .result(.value(.bool(connection.unsubscribe(id))))
            },
            Method(method.discover) { _, _ throws(RPCError) in
                .result(.encoded(document))
            },
        ])
    }
}
