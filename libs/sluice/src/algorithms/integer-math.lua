-- Floor division exact for integers up to 2^53 (see integer-math.ts).
local function idiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

local function imod(a, b)
  return a - idiv(a, b) * b
end

local function ceilDiv(a, b)
  return idiv(a + b - 1, b)
end
