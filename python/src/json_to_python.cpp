// nlohmann::json -> Python objects, so records reach Python as plain dicts without a JSON text round trip.
#include "bindings.hpp"

namespace chorus::python {

py::object to_python(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(value.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(value.get<uint64_t>());
    case nlohmann::json::value_t::number_float:
      return py::float_(value.get<double>());
    case nlohmann::json::value_t::string:
      return py::str(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list list;
      for (const auto& item : value)
        list.append(to_python(item));
      return list;
    }
    case nlohmann::json::value_t::object: {
      py::dict dict;
      for (const auto& [key, item] : value.items())
        dict[py::str(key)] = to_python(item);
      return dict;
    }
    default:  // binary and discarded values never occur in chorus records
      return py::none();
  }
}

}  // namespace chorus::python
