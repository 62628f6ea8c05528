#include "edgeadmm/dataio/adult_csv_reader.h"

#include <array>
#include <charconv>
#include <cmath>
#include <initializer_list>

#include "edgeadmm/dataio/compressed_file.h"
#include "text_lines.h"

namespace edgeadmm {
namespace {

// One attribute of adult.names: continuous (categories empty, scaled with
// [low, high]) or categorical (one-hot over categories).
struct Attribute {
  const char* name;
  std::initializer_list<const char*> categories;
  double low;
  double high;
};

const std::array<Attribute, 14>& Attributes() {
  static const std::array<Attribute, 14> kAttributes = {{
      {"age", {}, 17, 90},
      {"workclass",
       {"Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov",
        "Local-gov", "State-gov", "Without-pay", "Never-worked"},
       0,
       0},
      {"fnlwgt", {}, 12285, 1490400},
      {"education",
       {"Bachelors", "Some-college", "11th", "HS-grad", "Prof-school",
        "Assoc-acdm", "Assoc-voc", "9th", "7th-8th", "12th", "Masters",
        "1st-4th", "10th", "Doctorate", "5th-6th", "Preschool"},
       0,
       0},
      {"education-num", {}, 1, 16},
      {"marital-status",
       {"Married-civ-spouse", "Divorced", "Never-married", "Separated",
        "Widowed", "Married-spouse-absent", "Married-AF-spouse"},
       0,
       0},
      {"occupation",
       {"Tech-support", "Craft-repair", "Other-service", "Sales",
        "Exec-managerial", "Prof-specialty", "Handlers-cleaners",
        "Machine-op-inspct", "Adm-clerical", "Farming-fishing",
        "Transport-moving", "Priv-house-serv", "Protective-serv",
        "Armed-Forces"},
       0,
       0},
      {"relationship",
       {"Wife", "Own-child", "Husband", "Not-in-family", "Other-relative",
        "Unmarried"},
       0,
       0},
      {"race",
       {"White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"},
       0,
       0},
      {"sex", {"Female", "Male"}, 0, 0},
      {"capital-gain", {}, 0, 99999},
      {"capital-loss", {}, 0, 4356},
      {"hours-per-week", {}, 1, 99},
      {"native-country",
       {"United-States",
        "Cambodia",
        "England",
        "Puerto-Rico",
        "Canada",
        "Germany",
        "Outlying-US(Guam-USVI-etc)",
        "India",
        "Japan",
        "Greece",
        "South",
        "China",
        "Cuba",
        "Iran",
        "Honduras",
        "Philippines",
        "Italy",
        "Poland",
        "Jamaica",
        "Vietnam",
        "Mexico",
        "Portugal",
        "Ireland",
        "France",
        "Dominican-Republic",
        "Laos",
        "Ecuador",
        "Taiwan",
        "Haiti",
        "Columbia",
        "Hungary",
        "Guatemala",
        "Nicaragua",
        "Scotland",
        "Thailand",
        "Yugoslavia",
        "El-Salvador",
        "Trinadad&Tobago",
        "Peru",
        "Hong",
        "Holand-Netherlands"},
       0,
       0},
  }};
  return kAttributes;
}

size_t Width(const Attribute& attribute) {
  return attribute.categories.size() == 0 ? 1 : attribute.categories.size();
}

// Encodes `field` of `attribute` into row[0 .. Width(attribute));
// INVALID_ARGUMENT saying what is wrong if the field is not a valid value of
// the attribute.
host::Error Encode(const Attribute& attribute, std::string_view field,
                   Real* row) {
  if (attribute.categories.size() == 0) {
    double value = 0;
    const auto [end, ec] =
        std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec != std::errc() || end != field.data() + field.size() ||
        !std::isfinite(value)) {
      return host::Error::InvalidArgument("'" + std::string(field) +
                                          "' is not a number");
    }
    row[0] = (value - attribute.low) / (attribute.high - attribute.low);
    return host::Error::Ok();
  }
  size_t index = 0;
  for (const char* category : attribute.categories) {
    if (field == category) {
      row[index] = 1;
      return host::Error::Ok();
    }
    ++index;
  }
  return host::Error::InvalidArgument("unknown category '" +
                                      std::string(field) + "'");
}

bool ParseLabel(std::string_view field, Real* label) {
  if (!field.empty() && field.back() == '.') field.remove_suffix(1);
  if (field == ">50K") {
    *label = 1;
  } else if (field == "<=50K") {
    *label = -1;
  } else {
    return false;
  }
  return true;
}

}  // namespace

host::ErrorOr<DenseDataset> ParseAdultCsv(std::string_view text,
                                          const std::string& name,
                                          AdultCsvStats* stats) {
  const auto& attributes = Attributes();
  DenseDataset data;
  data.dim = kAdultFeatures;
  AdultCsvStats counts;
  internal::TextLines lines(text);
  std::string_view line;
  std::array<std::string_view, 15> fields;
  while (lines.Next(&line)) {
    const std::string_view trimmed = internal::Trim(line);
    if (trimmed.empty() || trimmed.front() == '|') continue;
    size_t count = 0;
    bool missing = false;
    for (std::string_view rest = trimmed;; ++count) {
      const size_t comma = rest.find(',');
      if (count < fields.size()) {
        fields[count] = internal::Trim(rest.substr(0, comma));
        missing = missing || fields[count] == "?";
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    ++count;
    if (count != fields.size()) {
      return internal::LineError(
          name, lines.number(),
          "expected 15 fields, found " + std::to_string(count));
    }
    ++counts.records;
    if (missing) {
      ++counts.dropped_missing;
      continue;
    }
    Real label = 0;
    if (!ParseLabel(fields[14], &label)) {
      return internal::LineError(
          name, lines.number(),
          "label '" + std::string(fields[14]) + "' is not <=50K or >50K");
    }
    data.features.resize(data.features.size() + kAdultFeatures, Real{0});
    Real* column = data.features.data() + data.samples * kAdultFeatures;
    for (size_t i = 0; i < attributes.size(); ++i) {
      const host::Error bad = Encode(attributes[i], fields[i], column);
      if (!bad.ok()) {
        return internal::LineError(
            name, lines.number(),
            std::string(attributes[i].name) + ": " + bad.message());
      }
      column += Width(attributes[i]);
    }
    data.labels.push_back(label);
    ++data.samples;
  }
  if (stats != nullptr) *stats = counts;
  return data;
}

host::ErrorOr<DenseDataset> ReadAdultCsvFile(const std::string& path,
                                             AdultCsvStats* stats) {
  EDGEADMM_HOST_TRY_ASSIGN(const std::string text, ReadFileMaybeXz(path));
  return ParseAdultCsv(text, path, stats);
}

}  // namespace edgeadmm
