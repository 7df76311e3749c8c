#include "store/sql.hpp"

#include <cmath>
#include <limits>

namespace gpb::store {

const SqlValue& SqlRow::at(std::size_t column) const {
  if (column >= cells_.size())
    throw StoreError("database row has " + std::to_string(cells_.size()) + " columns, asked for column " +
                     std::to_string(column));
  return cells_[column];
}

bool SqlRow::is_null(std::size_t column) const { return std::holds_alternative<std::monostate>(at(column)); }

std::int64_t SqlRow::integer(std::size_t column) const {
  const SqlValue& value = at(column);
  if (const auto* number = std::get_if<std::int64_t>(&value)) return *number;
  throw StoreError("database column " + std::to_string(column) + " holds no integer");
}

double SqlRow::real(std::size_t column) const {
  const SqlValue& value = at(column);
  if (const auto* number = std::get_if<double>(&value)) return *number;
  if (const auto* number = std::get_if<std::int64_t>(&value)) return static_cast<double>(*number);
  if (std::holds_alternative<std::monostate>(value)) return std::numeric_limits<double>::quiet_NaN();
  throw StoreError("database column " + std::to_string(column) + " holds no number");
}

const std::string& SqlRow::text(std::size_t column) const {
  const SqlValue& value = at(column);
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  throw StoreError("database column " + std::to_string(column) + " holds no text");
}

}  // namespace gpb::store
