#include "edgeadmm/dataset_maps.h"

#include "span_map.h"

namespace edgeadmm {

ConstMatrixMap FeaturesMap(const DatasetView& view) {
  return ConstMatrixMap(view.features().data(), internal::Index(view.samples()),
                        internal::Index(view.dim()));
}

ConstVectorMap LabelsMap(const DatasetView& view) {
  return internal::AsVector(view.labels());
}

}  // namespace edgeadmm
