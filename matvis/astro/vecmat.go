package astro

import "math"

// vec3 is a Cartesian 3-vector.
type vec3 [3]float64

// mat3 is a 3×3 matrix, row-major (m[i][j] = row i, column j).
type mat3 [3][3]float64

func identity() mat3 { return mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} }

// rotX replaces r by R_x(φ)·r, R_x(φ) = [[1,0,0],[0,c,s],[0,−s,c]]
// (a rotation of the reference frame by +φ about x).
func (r *mat3) rotX(phi float64) {
	s, c := math.Sincos(phi)
	a10 := c*r[1][0] + s*r[2][0]
	a11 := c*r[1][1] + s*r[2][1]
	a12 := c*r[1][2] + s*r[2][2]
	a20 := -s*r[1][0] + c*r[2][0]
	a21 := -s*r[1][1] + c*r[2][1]
	a22 := -s*r[1][2] + c*r[2][2]
	r[1] = [3]float64{a10, a11, a12}
	r[2] = [3]float64{a20, a21, a22}
}

// rotY replaces r by R_y(θ)·r, R_y(θ) = [[c,0,−s],[0,1,0],[s,0,c]].
func (r *mat3) rotY(theta float64) {
	s, c := math.Sincos(theta)
	a00 := c*r[0][0] - s*r[2][0]
	a01 := c*r[0][1] - s*r[2][1]
	a02 := c*r[0][2] - s*r[2][2]
	a20 := s*r[0][0] + c*r[2][0]
	a21 := s*r[0][1] + c*r[2][1]
	a22 := s*r[0][2] + c*r[2][2]
	r[0] = [3]float64{a00, a01, a02}
	r[2] = [3]float64{a20, a21, a22}
}

// rotZ replaces r by R_z(ψ)·r, R_z(ψ) = [[c,s,0],[−s,c,0],[0,0,1]].
func (r *mat3) rotZ(psi float64) {
	s, c := math.Sincos(psi)
	a00 := c*r[0][0] + s*r[1][0]
	a01 := c*r[0][1] + s*r[1][1]
	a02 := c*r[0][2] + s*r[1][2]
	a10 := -s*r[0][0] + c*r[1][0]
	a11 := -s*r[0][1] + c*r[1][1]
	a12 := -s*r[0][2] + c*r[1][2]
	r[0] = [3]float64{a00, a01, a02}
	r[1] = [3]float64{a10, a11, a12}
}

// apply returns m·v.
func (m *mat3) apply(v vec3) vec3 {
	return vec3{
		m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2],
		m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2],
		m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2],
	}
}

// applyT returns mᵀ·v.
func (m *mat3) applyT(v vec3) vec3 {
	return vec3{
		m[0][0]*v[0] + m[1][0]*v[1] + m[2][0]*v[2],
		m[0][1]*v[0] + m[1][1]*v[1] + m[2][1]*v[2],
		m[0][2]*v[0] + m[1][2]*v[1] + m[2][2]*v[2],
	}
}

func dot(a, b vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func cross(a, b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// s2c is the unit vector of spherical angles (θ longitude, φ latitude).
func s2c(theta, phi float64) vec3 {
	st, ct := math.Sincos(theta)
	sp, cp := math.Sincos(phi)
	return vec3{ct * cp, st * cp, sp}
}

// c2s gives the spherical angles of a vector (θ = 0 at the poles).
func c2s(p vec3) (theta, phi float64) {
	d2 := p[0]*p[0] + p[1]*p[1]
	if d2 != 0 {
		theta = math.Atan2(p[1], p[0])
	}
	if p[2] != 0 {
		phi = math.Atan2(p[2], math.Sqrt(d2))
	}
	return theta, phi
}

// norm splits a vector into its length and unit vector (zero stays zero).
func norm(p vec3) (float64, vec3) {
	r := math.Sqrt(dot(p, p))
	if r == 0 {
		return 0, vec3{}
	}
	return r, vec3{p[0] / r, p[1] / r, p[2] / r}
}
