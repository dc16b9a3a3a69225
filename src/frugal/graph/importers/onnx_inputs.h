// The graph inputs of an ONNX model, made static before shape inference:
// inputs that are weights (exported with export_params=False, or feeding a
// weight slot) become data-less initializers, so that they count as
// parameters and no batch is set on them; the symbolic dims of the data
// inputs take their values from ImportOptions (the batch dim from `batch`,
// the others from `dims`). Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTERS_ONNX_INPUTS_H_
#define FRUGAL_GRAPH_IMPORTERS_ONNX_INPUTS_H_

#include <cstdint>
#include <string>

#include "frugal/base/status.h"
#include "frugal/graph/importer.h"
#include "onnx/onnx_pb.h"

namespace frugal::importers {

// Turns weight inputs into initializers (returns how many), then sets every
// symbolic dim of the data inputs. The batch symbol is the one named like a
// batch ("batch", "batch_size", "N", ... ) or else the symbolic dim 0 of the
// first data input; it takes options.batch (1 when 0). Every other symbol
// must be in options.dims. Errors (InvalidArgument, prefixed with `path`):
// a symbolic dim without a value (naming the input, the dim and the
// `--dim NAME=VALUE` flag), an options.dims name the model lacks, a batch
// requested for a file whose batch is fixed to another value. Returns the
// batch the graph is built for (0 when no input has a dim).
Result<int64_t> PrepareInputs(onnx::GraphProto* graph,
                              const ImportOptions& options,
                              const std::string& path, int* weight_inputs);

}  // namespace frugal::importers

#endif  // FRUGAL_GRAPH_IMPORTERS_ONNX_INPUTS_H_
