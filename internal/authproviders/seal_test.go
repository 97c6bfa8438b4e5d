package authproviders

import (
	"errors"
	"testing"
)

func TestASealedClientSecretOpensOnlyForItsProjectNameAndServerSecret(t *testing.T) {
	t.Parallel()
	sealed := seal("server-secret", "p1", "google", "client-secret")
	if got, err := open("server-secret", "p1", "google", sealed); err != nil || got != "client-secret" {
		t.Fatalf("open = %q, %v", got, err)
	}
	if string(sealed) == "client-secret" || len(sealed) != 12+len("client-secret")+16 {
		t.Fatalf("sealed = %x", sealed)
	}
	for _, tc := range []struct{ secret, project, name string }{
		{"another-secret", "p1", "google"}, {"server-secret", "p2", "google"}, {"server-secret", "p1", "corp"},
	} {
		if _, err := open(tc.secret, tc.project, tc.name, sealed); !errors.Is(err, ErrSealed) {
			t.Errorf("open with %+v: %v, want ErrSealed", tc, err)
		}
	}
	if _, err := open("server-secret", "p1", "google", sealed[:5]); !errors.Is(err, ErrSealed) {
		t.Errorf("open of a truncated value: %v", err)
	}
	if again := seal("server-secret", "p1", "google", "client-secret"); string(again) == string(sealed) {
		t.Error("two seals of one secret are equal: the nonce is not random")
	}
}

func TestMicrosoftSharedTenantsCheckTheTokensOwnIssuer(t *testing.T) {
	t.Parallel()
	common := Provider{Kind: KindMicrosoft, Tenant: "common"}
	if err := CheckIssuer(common, "https://login.microsoftonline.com/abc/v2.0", "abc"); err != nil {
		t.Fatal(err)
	}
	if err := CheckIssuer(common, "https://login.microsoftonline.com/abc/v2.0", "xyz"); err == nil {
		t.Fatal("an issuer of another directory passed")
	}
	if err := CheckIssuer(Provider{Kind: KindOIDC}, "anything", ""); err != nil {
		t.Fatal("go-oidc checks other kinds' issuers; CheckIssuer must not refuse them")
	}
}
