/// The pipelines of the pipeline scenario (issue 14): four distinct filter + select pipelines over the generated
/// items (`{"id", "name", "types", "note"}`), keeping a quarter to all of them, some holding the removed ids.
public enum BenchPipelines {
    public static let filterSelect = [
        #"[{"op":"filter","where":{"field":"/id","lt":25000}},{"op":"select","fields":["/name"]}]"#,
        #"[{"op":"filter","where":{"field":"/types","contains":"normal"}},{"op":"select","fields":["/name","/types"]}]"#,
        #"[{"op":"filter","where":{"field":"/name","prefix":"item 1"}},{"op":"select","fields":["/name"]}]"#,
        #"[{"op":"filter","where":{"not":{"field":"/id","lt":50000}}},{"op":"select","fields":["/id"]}]"#,
    ]
}
