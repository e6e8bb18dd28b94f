package usage

import "errors"

// ErrInvalidPrice is a negative or non-finite price in the price table.
var ErrInvalidPrice = errors.New("usage: invalid price")
