import DepotCore
import DepotJSON
import DepotOperators
import DepotPipeline
import DepotRPC
import DepotWire
import NIOCore
import NIOPosix

/// Depot's methods, bound to one repository and its fan-out: for each request type of DepotWire, what the
/// server does with it. The names, params and answers are the contract described in rpc-schema/.
enum DepotMethods {
    /// Up to this many items, `state` and `get` through a pipeline are answered on the event loop (a hop to another
    /// thread would cost more than the work); above, on the server's CPU pool.
    static let shapingInlineLimit = 1_000

    static func dispatcher(
        repository: Repository, fanout: StateFanout, access: AccessControl = AccessControl(.open),
        statistics: ServerStatistics = ServerStatistics()
    ) -> RPCDispatcher<any DepotSession> {
        /// Every method: the caller's access checked first, on every call; a refusal changes nothing.
        func method<Request: DepotRequest>(
            _ type: Request.Type, _ handler: @escaping @Sendable (Request, any DepotSession) throws(RPCError) -> RPCReply
        ) -> RPCMethod<any DepotSession> {
            .handling(type) { request, session throws(RPCError) in
                try access.authorize(Request.self, session.peer)
                return try handler(request, session)
            }
        }

        /// The answer to a mutation, once it has run, as `body` encodes its value or `failure` its error; the outcome
        /// (the seq it published, or the error) is logged whether or not the client is still there to be answered.
        /// Nothing waits in a task: the mutation calls back when it finishes, and a connection that closes first
        /// withdraws the call.
        @Sendable func later<Value: Sendable>(
            _ mutation: Mutation<Result<Value, RepositoryError>>, _ note: MutationNote, published: @escaping @Sendable (Value) -> PublishedState,
            body: @escaping @Sendable (Value) -> ByteBuffer, failure: @escaping @Sendable (RepositoryError) -> RPCError
        ) -> RPCReply {
            mutation.whenFinished { result in
                switch result {
                case .success(let value):
                    let state = published(value)
                    note.finished("done, seq \(state.seq) \(state.state.status.rawValue)")
                case .failure(let error): note.finished("failed (\(error.kind)): \(error.message)")
                }
            }
            return .later(
                PendingResult { completion in
                    let waiter = mutation.whenFinished { result in
                        switch result {
                        case .success(let value): completion(.success(.encoded(body(value))))
                        case .failure(let error): completion(.failure(failure(error)))
                        }
                    }
                    // Not kept alive by the wait: a finished mutation holds its whole state, which goes once no one needs it.
                    return Withdrawal { [weak mutation] in mutation?.withdraw(waiter) }
                })
        }

        /// A state as a mutation's answer gives it: with its items only when the call asked for them, else with their
        /// count — a few hundred bytes whatever the collection.
        @Sendable func encoded(_ state: PublishedState, withItems: Bool) -> ByteBuffer {
            withItems ? fanout.encoded(state) : StateEncoder.encode(state, epoch: fanout.epoch, form: .countOnly)
        }

        /// The answer to a mutation: the state it published, or its error with the state it left as `data` (a
        /// conditional removal's conflict as a write's, with the item there).
        @Sendable func answer(
            _ mutation: Mutation<MutationResult>, _ note: MutationNote, withItems: Bool, conflictsAsWrites: Bool = false
        ) -> RPCReply {
            later(
                mutation, note, published: { $0 }, body: { encoded($0, withItems: withItems) },
                failure: { error in
                    let state = encoded(error.state, withItems: withItems)
                    return conflictsAsWrites && error.kind == .conflict
                        ? .writeFailed(error, encodedState: state, batch: false) : .mutationFailed(error, encodedState: state)
                })
        }

        /// The answer to a write (`put`, `patch`, `apply`) once the source has made it — `{"etag", "created", "state"}`,
        /// or for a batch `{"etags", "state"}` — or its error with `{"state", …}` as data (see `RPCError.writeFailed`).
        @Sendable func answer(_ mutation: Mutation<WriteResult>, _ note: MutationNote, withItems: Bool, batch: Bool) -> RPCReply {
            later(
                mutation, note, published: \.state,
                body: { outcome in
                    var body = ByteBuffer()
                    if batch {
                        body.writeStaticString("{\"etags\":")
                        body.writeBytes(JSONValue.array(outcome.etags.map { $0.map(JSONValue.string) ?? .null }).jsonBytes)
                    } else {
                        body.writeStaticString("{\"etag\":")
                        JSONWriter.writeString(outcome.etags.first.flatMap { $0 } ?? "", to: &body)
                        body.writeStaticString(outcome.created.first == true ? ",\"created\":true" : ",\"created\":false")
                    }
                    body.writeStaticString(",\"state\":")
                    var state = encoded(outcome.state, withItems: withItems)
                    body.writeBuffer(&state)
                    body.writeStaticString("}")
                    return body
                },
                failure: { .writeFailed($0, encodedState: encoded($0.state, withItems: withItems), batch: batch) })
        }

        /// The pipeline a `state` or `get` answers through; nil for none. notFound for an unknown name.
        @Sendable func pipeline(_ reference: PipelineReference?) throws(RPCError) -> Pipeline? {
            switch reference {
            case nil: return nil
            case .operators(let pipeline)?: return pipeline.isEmpty ? nil : pipeline
            case .named(let name)?:
                guard let entry = fanout.library.entry(name) else {
                    throw .pipelineLibrary(.notFound(name: name))
                }
                return entry.named.pipeline
            }
        }

        /// The answer `work` gives for `state` or `get` through a pipeline over `state`, or for `state`'s snapshot not
        /// yet encoded: at once for a small collection; on the server's CPU pool for a large one, whose items through a
        /// pipeline, or joined into one answer, take time in proportion to them — never on an event loop.
        @Sendable func shaping(
            _ state: PublishedState, _ work: @escaping @Sendable () -> Result<ResultBody, RPCError>
        ) throws(RPCError) -> RPCReply {
            guard (state.state.items?.count ?? 0) > DepotMethods.shapingInlineLimit else {
                return .result(try work().get())
            }
            return .later(
                PendingResult { completion in
                    fanout.pool.run { completion(work()) }
                    return .none
                })
        }

        /// The item `id` of `state`, encoded (with `meta`, `{"item", "etag"}`); notFound, saying why, when it has none by
        /// that id.
        @Sendable func item(_ id: String, of state: PublishedState, meta: Bool = false) throws(RPCError) -> ResultBody {
            guard let items = state.state.items else {
                throw .notFound("no item \"\(id)\": no items are loaded (the state is \(state.state.status.rawValue)); run load first")
            }
            guard let item = items.item(id: id) else {
                throw .notFound("no item with id \"\(id)\" among the \(items.count) loaded items")
            }
            guard meta else { return .encoded(ByteBuffer(bytes: item.json)) }
            var body = ByteBuffer()
            body.writeStaticString("{\"item\":")
            body.writeBytes(item.json)
            body.writeStaticString(",\"etag\":")
            JSONWriter.writeString(item.etag, to: &body)
            body.writeStaticString("}")
            return .encoded(body)
        }

        /// `pipelines.put` or `pipelines.delete` of `name`: `change` runs on the library's own queue (a file written and
        /// synced takes as long as the disk does, and this is called on an event loop) and gives the outcome to note and
        /// the result to answer; the fan-out then hears that the named pipeline changed.
        @Sendable func changingLibrary(
            _ name: String, _ note: MutationNote,
            _ change: @escaping @Sendable (@escaping @Sendable (Result<(outcome: String, result: JSONValue), PipelineLibraryError>) -> Void) -> Void
        ) -> RPCReply {
            .later(
                PendingResult { completion in
                    change { result in
                        switch result {
                        case .success(let (outcome, value)):
                            note.finished(outcome)
                            fanout.namedPipelineChanged(name) { completion(.success(.value(value))) }
                        case .failure(let error):
                            note.finished("failed: \(error)")
                            completion(.failure(.pipelineLibrary(error)))
                        }
                    }
                    return .none
                })
        }

        /// A named pipeline's answer to `pipelines.get` and `pipelines.list`.
        @Sendable func stored(_ entry: PipelineLibrary.Entry) -> JSONValue {
            StoredPipeline(named: entry.named, readOnly: entry.isReadOnly).json
        }

        // The document, compact (an answer is one line), encoded once.
        let document = ByteBuffer(bytes: ProtocolDocument.value.jsonBytes)

        return RPCDispatcher(methods: [
            method(StateRequest.self) { request, _ throws(RPCError) in
                guard let pipeline = try pipeline(request.pipeline) else {
                    // The first reader of a large state's snapshot encodes it: on the CPU pool, as shaping does.
                    let frame = fanout.current
                    if frame.isSnapshotEncoded { return .result(.encoded(frame.snapshot)) }
                    return try shaping(frame.published) { .success(.encoded(frame.snapshot)) }
                }
                let current = fanout.current.published
                return try shaping(current) {
                    let shaped = PipelineRun.shapeItems(of: current, through: pipeline, idField: repository.idField)
                    return .success(.encoded(StateEncoder.encode(shaped, epoch: fanout.epoch)))
                }
            },
            method(GetRequest.self) { request, _ throws(RPCError) in
                let current = fanout.current.published
                guard let pipeline = try pipeline(request.pipeline) else { return .result(try item(request.id, of: current, meta: request.meta)) }
                return try shaping(current) {
                    let shaped = PipelineRun.shapeItems(of: current, through: pipeline, idField: repository.idField)
                    if shaped.state.items.map({ !$0.contains(id: request.id) }) ?? false {
                        return .failure(.notFound("no item with id \"\(request.id)\" passes the pipeline"))
                    }
                    return Result { () throws(RPCError) in try item(request.id, of: shaped, meta: request.meta) }
                }
            },
            method(LoadRequest.self) { request, connection throws(RPCError) in
                let strategy = request.strategy.map(RetrievalStrategy.init) ?? .defaultForLoad
                let note = connection.noteMutation(LoadRequest.method, strategy == .defaultForLoad ? "" : strategy.rawValue)
                return answer(repository.load(strategy: strategy, by: connection.requester), note, withItems: request.items)
            },
            method(RemoveRequest.self) { request, connection throws(RPCError) in
                let note = connection.noteMutation(RemoveRequest.method, request.optimistic ? "\(request.id) (optimistic)" : request.id)
                let removal = repository.remove(id: request.id, optimistic: request.optimistic, ifMatch: request.ifMatch, by: connection.requester)
                guard request.ifMatch != nil else { return answer(removal, note, withItems: request.items) }
                // A conditional removal's conflict carries the item there, as a write's does; its other errors the State.
                return answer(removal, note, withItems: request.items, conflictsAsWrites: true)
            },
            method(PutRequest.self) { request, connection throws(RPCError) in
                let note = connection.noteMutation(PutRequest.method, request.optimistic ? "\(request.change.id) (optimistic)" : request.change.id)
                let change = ItemChange(request.change)
                return answer(
                    repository.apply([change], optimistic: request.optimistic, by: connection.requester), note, withItems: request.items, batch: false
                )
            },
            method(PatchRequest.self) { request, connection throws(RPCError) in
                let note = connection.noteMutation(PatchRequest.method, request.optimistic ? "\(request.change.id) (optimistic)" : request.change.id)
                let change = ItemChange(request.change)
                return answer(
                    repository.apply([change], optimistic: request.optimistic, by: connection.requester), note, withItems: request.items, batch: false
                )
            },
            method(ApplyRequest.self) { request, connection throws(RPCError) in
                let note = connection.noteMutation(
                    ApplyRequest.method,
                    "\(request.changes.count) change\(request.changes.count == 1 ? "" : "s")\(request.optimistic ? " (optimistic)" : "")")
                let changes = request.changes.map(ItemChange.init)
                return answer(
                    repository.apply(changes, optimistic: request.optimistic, by: connection.requester), note, withItems: request.items, batch: true)
            },
            method(WipeRequest.self) { _, connection throws(RPCError) in
                let note = connection.noteMutation(WipeRequest.method)
                return answer(repository.wipe(by: connection.requester), note, withItems: false)
            },
            method(SubscribeRequest.self) { request, connection throws(RPCError) in
                let start = try connection.subscribe(request)
                return .result(.value(Subscribed(subscription: start.id, epoch: start.epoch, seq: start.seq, resumed: start.resumed).json))
            },
            method(UnsubscribeRequest.self) { request, connection throws(RPCError) in
                .result(.value(.bool(connection.unsubscribe(request.subscription))))
            },
            method(WhoamiRequest.self) { _, session throws(RPCError) in
                let peer = session.peer
                let level = access.level(of: peer)
                let levels = AccessLevel.allCases.filter { candidate in level.map { candidate <= $0 } ?? false }
                return .result(
                    .value(
                        Whoami(
                            uid: peer?.uid ?? access.daemonUID, gid: peer?.gid ?? 0, groups: peer?.groups ?? [], user: peer?.userName,
                            pid: peer?.pid, levels: levels, methods: access.methods(of: peer)
                        ).json))
            },
            method(StatsRequest.self) { _, _ throws(RPCError) in
                .later(
                    PendingResult { completion in
                        statistics.gather(repository: repository, fanout: fanout) { completion(.success(.value($0.json))) }
                        return .none
                    })
            },
            method(DiscoverRequest.self) { _, _ throws(RPCError) in
                .result(.encoded(document))
            },
            method(PipelinesPutRequest.self) { request, connection throws(RPCError) in
                let name = request.named.name
                return changingLibrary(name, connection.noteMutation(PipelinesPutRequest.method, name)) { done in
                    fanout.library.put(request.named) {
                        done(
                            $0.map { created in
                                (created ? "created" : "replaced", ["name": .string(name), "created": .bool(created)])
                            })
                    }
                }
            },
            method(PipelinesGetRequest.self) { request, _ throws(RPCError) in
                guard let entry = fanout.library.entry(request.name) else { throw .pipelineLibrary(.notFound(name: request.name)) }
                return .result(.value(stored(entry)))
            },
            method(PipelinesListRequest.self) { _, _ throws(RPCError) in
                .result(.value(.array(fanout.library.list().map(stored))))
            },
            method(PipelinesDeleteRequest.self) { request, connection throws(RPCError) in
                changingLibrary(request.name, connection.noteMutation(PipelinesDeleteRequest.method, request.name)) { done in
                    fanout.library.delete(request.name) { done($0.map { ("deleted", true) }) }
                }
            },
        ])
    }
}
