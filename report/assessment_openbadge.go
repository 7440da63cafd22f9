package report

import (
	"cmp"
	"net/url"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/jsonvalue"
)

// Open Badges 3.0 contexts: the Verifiable Credentials Data Model 2.0 and
// the Open Badges 3.0 context its OpenBadgeCredential needs.
const (
	vcContext = "https://www.w3.org/ns/credentials/v2"
	obContext = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"
)

type obCredential struct {
	Context           []string  `json:"@context"`
	ID                string    `json:"id"`
	Type              []string  `json:"type"`
	Name              string    `json:"name"`
	Issuer            obProfile `json:"issuer"`
	ValidFrom         string    `json:"validFrom"`
	ValidUntil        string    `json:"validUntil"`
	CredentialSubject obSubject `json:"credentialSubject"`
}

type obProfile struct {
	ID   string   `json:"id"`
	Type []string `json:"type"`
	Name string   `json:"name"`
}

type obSubject struct {
	ID          string        `json:"id"`
	Type        []string      `json:"type"`
	Achievement obAchievement `json:"achievement"`
	Result      []obResult    `json:"result"`
}

type obAchievement struct {
	ID                string                `json:"id"`
	Type              []string              `json:"type"`
	Name              string                `json:"name"`
	Description       string                `json:"description"`
	Criteria          obCriteria            `json:"criteria"`
	ResultDescription []obResultDescription `json:"resultDescription"`
}

type obCriteria struct {
	Narrative string `json:"narrative"`
}

type obResultDescription struct {
	ID           string   `json:"id"`
	Type         []string `json:"type"`
	Name         string   `json:"name"`
	ResultType   string   `json:"resultType"`
	AllowedValue []string `json:"allowedValue,omitempty"`
	ValueMin     string   `json:"valueMin,omitempty"`
	ValueMax     string   `json:"valueMax,omitempty"`
}

type obResult struct {
	Type              []string `json:"type"`
	ResultDescription string   `json:"resultDescription"`
	Value             string   `json:"value"`
}

// urn makes an identifier of evalgate's own URN namespace from parts,
// each escaped.
func urn(parts ...string) string {
	s := "urn:evalgate"
	for _, p := range parts {
		s += ":" + url.PathEscape(p)
	}
	return s
}

// AssessmentOpenBadge renders assessment.openbadge.json: an unsigned Open
// Badges 3.0 OpenBadgeCredential whose subject is the agent and whose
// results carry both tiers and composites. An axis without a composite
// has the result value "not assessed". Signing it (a proof) is left to the
// issuer's own keys.
func AssessmentOpenBadge(a *assess.Assessment) ([]byte, error) {
	org := cmp.Or(a.Organization, "evalgate")
	agent := cmp.Or(a.Agent.ID, "agent")
	c := obCredential{
		Context:    []string{vcContext, obContext},
		ID:         urn("assessment", a.ID),
		Type:       []string{"VerifiableCredential", "OpenBadgeCredential"},
		Name:       "AAAF assessment of " + cmp.Or(a.Agent.Name, agent),
		Issuer:     obProfile{ID: urn("issuer", org), Type: []string{"Profile"}, Name: org},
		ValidFrom:  assessmentTime(a.Timestamp),
		ValidUntil: assessmentTime(a.ValidUntil),
		CredentialSubject: obSubject{
			ID:   urn("agent", agent),
			Type: []string{"AchievementSubject"},
			Achievement: obAchievement{
				ID:          urn("achievement", "aaaf-dual-axis"),
				Type:        []string{"Achievement"},
				Name:        "AAAF dual-axis assessment",
				Description: "An AI agent assessed on two axes, Performance (how well it executes) and Capability (what it can do), each a weighted composite of measured dimensions mapped to a tier.",
				Criteria:    obCriteria{Narrative: "Computed by evalgate from the agent's eval results in CI, as docs/assessment.md describes: performance tiers Novice < Competent (0.40) < Proficient (0.60) < Expert (0.75) < Elite (0.90); capability tiers Narrow < Functional (0.30) < Versatile (0.50) < Specialist (0.70) < Full-Stack (0.85)."},
			},
		},
	}
	for _, ax := range []*assess.Axis{&a.Performance, &a.Capability} {
		var names []string
		for _, t := range assess.Tiers[ax.Name] {
			names = append(names, t.Name)
		}
		tierID, scoreID := urn("result", ax.Name, "tier"), urn("result", ax.Name, "composite")
		c.CredentialSubject.Achievement.ResultDescription = append(c.CredentialSubject.Achievement.ResultDescription,
			obResultDescription{ID: tierID, Type: []string{"ResultDescription"}, Name: axisTitle(ax.Name) + " tier",
				ResultType: "PerformanceLevel", AllowedValue: append(names, "not assessed")},
			obResultDescription{ID: scoreID, Type: []string{"ResultDescription"}, Name: axisTitle(ax.Name) + " composite score",
				ResultType: "ScaledScore", ValueMin: "0", ValueMax: "1"})
		tier, score := "not assessed", "none"
		if ax.Score != nil {
			tier, score = ax.Tier.Name, score2(*ax.Score)
		}
		c.CredentialSubject.Result = append(c.CredentialSubject.Result,
			obResult{Type: []string{"Result"}, ResultDescription: tierID, Value: tier},
			obResult{Type: []string{"Result"}, ResultDescription: scoreID, Value: score})
	}
	return jsonvalue.MarshalFile(c)
}
