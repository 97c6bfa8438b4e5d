package service_test

import (
	"testing"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// A reload that empties the secret reads the kept one from the database;
// when that fails, the reload must fail and leave the running settings.
func TestAReloadWhoseSecretCannotBeLoadedFailsAndKeepsTheOldSettings(t *testing.T) {
	s := testserver.New(t)
	before := s.Svc.Settings()
	if err := s.Svc.DB.Close(); err != nil {
		t.Fatal(err)
	}
	err := s.Svc.Configure(service.Settings{DefaultPlan: "free"})
	if err == nil {
		t.Fatal("Configure with an unloadable secret returned no error")
	}
	if after := s.Svc.Settings(); after.Secret != before.Secret || after.DefaultPlan != before.DefaultPlan {
		t.Fatalf("settings after a failed reload: secret %q plan %q, want %q %q", after.Secret, after.DefaultPlan, before.Secret, before.DefaultPlan)
	}
}
