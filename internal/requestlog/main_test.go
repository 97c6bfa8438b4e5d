package requestlog_test

import (
	"testing"

	"github.com/tablesmith/tablesmith/internal/testpg"
)

func TestMain(m *testing.M) { testpg.Main(m, "requestlog") }
