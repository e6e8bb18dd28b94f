package lti

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Claim names of LTI 1.3 core, Deep Linking 2.0, AGS 2.0 and NRPS 2.0.
const (
	claimMessageType    = "https://purl.imsglobal.org/spec/lti/claim/message_type"
	claimVersion        = "https://purl.imsglobal.org/spec/lti/claim/version"
	claimDeploymentID   = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
	claimTargetLinkURI  = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri"
	claimResourceLink   = "https://purl.imsglobal.org/spec/lti/claim/resource_link"
	claimRoles          = "https://purl.imsglobal.org/spec/lti/claim/roles"
	claimContext        = "https://purl.imsglobal.org/spec/lti/claim/context"
	claimCustom         = "https://purl.imsglobal.org/spec/lti/claim/custom"
	claimDeepLinking    = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
	claimContentItems   = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
	claimDeepLinkData   = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
	claimAGSEndpoint    = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
	claimNRPS           = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
	ltiVersion          = "1.3.0"
	MessageResourceLink = "LtiResourceLinkRequest"
	MessageDeepLinking  = "LtiDeepLinkingRequest"
	messageDLResponse   = "LtiDeepLinkingResponse"
)

// Scopes the tool asks for, and no others.
const (
	ScopeScore      = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
	ScopeLineItem   = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
	ScopeMembership = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
)

// Roles (LIS vocabulary) the tool tells apart.
const (
	RoleLearner       = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
	RoleInstructor    = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
	RoleContentDev    = "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper"
	RoleAdministrator = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"
	roleTeachingAsst  = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
)

// ResourceLink is the placement a launch came from.
type ResourceLink struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

// Context is the course a launch came from.
type Context struct {
	ID    string `json:"id"`
	Label string `json:"label,omitempty"`
	Title string `json:"title,omitempty"`
}

// AGSEndpoint is the grade service of a launch's line items.
type AGSEndpoint struct {
	Scope     []string `json:"scope"`
	LineItems string   `json:"lineitems,omitempty"`
	LineItem  string   `json:"lineitem,omitempty"`
}

// NRPSEndpoint is the roster service of a launch's course.
type NRPSEndpoint struct {
	ContextMembershipsURL string   `json:"context_memberships_url"`
	ServiceVersions       []string `json:"service_versions"`
}

// DeepLinkSettings says where a Deep Linking response goes and what it may hold.
type DeepLinkSettings struct {
	ReturnURL      string   `json:"deep_link_return_url"`
	AcceptTypes    []string `json:"accept_types"`
	AcceptTargets  []string `json:"accept_presentation_document_targets,omitempty"`
	AcceptMultiple *bool    `json:"accept_multiple,omitempty"`
	Data           string   `json:"data,omitempty"`
}

// Launch is a verified launch: who, from where, in which role, with which services.
type Launch struct {
	Platform     Platform
	DeploymentID string
	MessageType  string
	Subject      string // the platform's stable id of the user (sub)
	Name         string
	Email        string
	Roles        []string
	ResourceLink ResourceLink
	Context      Context
	Custom       map[string]string
	TargetLink   string
	AGS          *AGSEndpoint
	NRPS         *NRPSEndpoint
	DeepLink     *DeepLinkSettings
}

// IsInstructor reports whether the launch carries a teaching role.
func (l *Launch) IsInstructor() bool {
	return slices.ContainsFunc(l.Roles, func(r string) bool {
		return r == RoleInstructor || r == RoleContentDev || r == RoleAdministrator || r == roleTeachingAsst ||
			strings.HasPrefix(r, RoleInstructor+"#") || strings.HasPrefix(r, "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#")
	})
}

// IsLearner reports whether the launch carries the Learner role.
func (l *Launch) IsLearner() bool { return slices.Contains(l.Roles, RoleLearner) }

// claimInto decodes claim name of claims into v; a missing claim leaves v as it is.
func claimInto(claims map[string]any, name string, v any) error {
	raw, ok := claims[name]
	if !ok || raw == nil {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("claim %s: %w", name, err)
	}
	return nil
}

// str returns a string claim, "" when absent or of another type.
func str(claims map[string]any, name string) string {
	s, _ := claims[name].(string)
	return s
}
